/**
 * Socket dialects benchmark: what a frame costs on the Realtime (`/v1/realtime`) and Deepgram
 * (`/v1/listen`) sockets next to the live socket, in the same run, on the same server process.
 *
 *   npm run build && node dist/bench/socket-dialects.bench.js [--sessions 100] [--window 8] [--warmup 2]
 *                                                              [--rounds 3] [--quick]
 *
 * The service (createApp, scripted engine, metering to a scratch PostgreSQL database) runs in a
 * child process; this process is the load generator. For each dialect in turn (rounds interleave
 * them, so drift on a shared machine spreads over all of them), N transcription sessions each
 * stream one 80 ms pcm16 frame every 80 ms: 1.2 s of tone (a transcript word every 400 ms), then
 * 1.2 s of silence (the VAD ends the turn). Live frames are session.input_audio.append JSON, Realtime
 * input_audio_buffer.append JSON, Deepgram raw binary at 24 kHz, and again at 16 kHz (resampled by
 * the service); all of them end in the same core.
 *
 * CPU per frame: the server's utime+stime (/proc) over the window / frames sent in it. Latency:
 * from sending the frame that completes a word to receiving that word's interim transcript event
 * (live session.input_transcript.delta, Realtime …transcription.delta, Deepgram interim Results).
 * Each figure is the median over the rounds (a shared machine makes single phases noisy; every
 * phase is in the report too). Target: each compatibility dialect within 1.5x the live socket's CPU
 * per frame, word latency p99 under 50 ms (the live socket's own figure is its benchmark's target;
 * here it is the reference), and no failed session. Results:
 * bench/results/socket-dialects.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { cpuSeconds } from './support/proc-usage';
import { round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { distribution, type Distribution } from './support/stats';

/** `listen-16k`: the Deepgram socket at 16 kHz, Deepgram's usual rate, resampled to 24 kHz on the way in. */
type Dialect = 'live' | 'realtime' | 'listen' | 'listen-16k';
const DIALECTS: readonly Dialect[] = ['live', 'realtime', 'listen', 'listen-16k'];
const isListen = (dialect: Dialect) => dialect === 'listen' || dialect === 'listen-16k';
const FRAME_MS = 80;
const SCRIPT_FRAMES = 30; // 15 loud, 15 silent
const WORD_EVERY = 5; // the scripted engine's 400 ms per word
const CPU_RATIO_LIMIT = 1.5;
const P99_LIMIT_MS = 50;
const SETTLE_MS = 2000;

interface Ready {
  port: number;
  apiKey: string;
}

// ---- child: the service ----------------------------------------------------------------------------

async function serve(url: string): Promise<void> {
  const config = new AppConfig({
    DATABASE_URL: url,
    SPEECH_ENGINE: 'scripted',
    ENGINE_MAX_STREAMS: '10000',
    CONCURRENT_SESSIONS_LIMIT: '100000',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
    STARTING_CREDIT_USD: '100000',
    LOG_LEVEL: 'warn',
    SHUTDOWN_GRACE_SECONDS: '0',
  });
  tuneHeapForStreaming(); // as main.ts does
  const app = await createApp({ config, database: new DatabaseLocation(url, null), logger: createRootLogger('warn') });
  await app.listen(0, '127.0.0.1');
  const { secret } = await app.get(ProjectsService).createProject('bench-dialects');
  process.once('SIGTERM', () => void app.close().finally(() => process.exit(0)));
  process.send!({ port: (app.getHttpServer().address() as AddressInfo).port, apiKey: secret } satisfies Ready);
}

// ---- parent: one dialect's client side -------------------------------------------------------------

function frameOf(loud: boolean, rate = 24_000): Buffer {
  const pcm = Buffer.alloc((rate * FRAME_MS * 2) / 1000);
  const step = (2 * Math.PI * 440) / rate;
  if (loud) for (let i = 0; i < pcm.length / 2; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin(i * step)), i * 2);
  return pcm;
}
const PCM = { loud: frameOf(true), quiet: frameOf(false) };

/** What each dialect sends per frame, prepared once: the load generator must stay light. */
const FRAMES: Record<Dialect, { loud: string | Buffer; quiet: string | Buffer }> = {
  live: {
    loud: JSON.stringify({ type: 'session.input_audio.append', audio: PCM.loud.toString('base64') }),
    quiet: JSON.stringify({ type: 'session.input_audio.append', audio: PCM.quiet.toString('base64') }),
  },
  realtime: {
    loud: JSON.stringify({ type: 'input_audio_buffer.append', audio: PCM.loud.toString('base64') }),
    quiet: JSON.stringify({ type: 'input_audio_buffer.append', audio: PCM.quiet.toString('base64') }),
  },
  listen: PCM,
  'listen-16k': { loud: frameOf(true, 16_000), quiet: frameOf(false, 16_000) },
};

/** The interim transcript event a word produces (the final ones come at the end of the turn). */
const IS_WORD_EVENT: Record<Dialect, (text: string) => boolean> = {
  live: (text) => text.includes('"type":"session.input_transcript.delta"') && text.includes('"done":false'),
  realtime: (text) => text.includes('"type":"conversation.item.input_audio_transcription.delta"'),
  listen: (text) => text.includes('"is_final":false'),
  'listen-16k': (text) => text.includes('"is_final":false'),
};

class Session {
  /** Send times of frames that complete a word, oldest first. */
  private readonly pending: number[] = [];
  private step: number;
  failed = false;
  closed = false;

  constructor(
    readonly ws: WebSocket,
    readonly dialect: Dialect,
    offset: number,
    private readonly latencies: number[],
    private readonly recording: () => boolean,
  ) {
    this.step = offset;
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      if (text.includes('"type":"error"')) this.failed = true;
      if (!IS_WORD_EVENT[dialect](text)) return;
      const sentAt = this.pending.shift();
      if (sentAt !== undefined && this.recording()) latencies.push(performance.now() - sentAt);
    });
    ws.on('close', () => (this.closed = true));
  }

  sendFrame(): void {
    const position = this.step++ % SCRIPT_FRAMES;
    const loud = position < SCRIPT_FRAMES / 2;
    if (loud && (position + 1) % WORD_EVERY === 0) this.pending.push(performance.now());
    const frame = loud ? FRAMES[this.dialect].loud : FRAMES[this.dialect].quiet;
    this.ws.send(frame, { binary: isListen(this.dialect) });
  }
}

async function openSession(
  ready: Ready,
  dialect: Dialect,
  offset: number,
  latencies: number[],
  recording: () => boolean,
) {
  const base = `ws://127.0.0.1:${ready.port}`;
  const url = {
    live: `${base}/v1/live/sessions`,
    realtime: `${base}/v1/realtime?intent=transcription`,
    listen: `${base}/v1/listen?encoding=linear16&sample_rate=24000&interim_results=true`,
    'listen-16k': `${base}/v1/listen?encoding=linear16&sample_rate=16000&interim_results=true`,
  }[dialect];
  const scheme = isListen(dialect) ? 'Token' : 'Bearer';
  const ws = new WebSocket(url, { headers: { authorization: `${scheme} ${ready.apiKey}` }, perMessageDeflate: false });
  const session = new Session(ws, dialect, offset, latencies, recording);
  // Listening before the socket opens: session.created may arrive right behind the 101.
  const started =
    dialect === 'live' ? '"type":"session.started"' : dialect === 'realtime' ? '"type":"session.created"' : null;
  const ack = new Promise<void>((resolve) => {
    if (started === null) return resolve(); // Deepgram sends nothing on open
    const onMessage = (data: WebSocket.RawData) => {
      if (!data.toString().includes(started)) return;
      ws.off('message', onMessage);
      resolve();
    };
    ws.on('message', onMessage);
  });
  await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
  if (dialect === 'live') {
    ws.send(JSON.stringify({ type: 'session.start', session: { model: 'vendor-asr-streaming' } }));
  }
  await ack;
  return session;
}

async function endSession(session: Session): Promise<void> {
  const closed = new Promise((resolve) => (session.closed ? resolve(null) : session.ws.once('close', resolve)));
  if (session.dialect === 'live') session.ws.send(JSON.stringify({ type: 'session.close' }));
  else if (isListen(session.dialect)) session.ws.send(JSON.stringify({ type: 'CloseStream' }));
  else session.ws.close(1000);
  await Promise.race([closed, sleep(10_000)]);
}

interface Phase {
  dialect: Dialect;
  round: number;
  sessions: number;
  frames: number;
  cpuPerFrameUs: number;
  latencyMs: Distribution;
  failedSessions: number;
}

async function measure(server: { pid: number; ready: Ready }, dialect: Dialect, options: Options, roundNo: number) {
  const latencies: number[] = [];
  let recording = false;
  const sessions: Session[] = [];
  for (let i = 0; i < options.sessions; i += 25) {
    const batch = Array.from({ length: Math.min(25, options.sessions - i) }, (_, j) =>
      // Each starts somewhere in the silent half, so that its turns begin on the script's first loud frame.
      openSession(
        server.ready,
        dialect,
        SCRIPT_FRAMES / 2 + ((i + j) % (SCRIPT_FRAMES / 2)),
        latencies,
        () => recording,
      ),
    );
    sessions.push(...(await Promise.all(batch)));
  }
  // Four groups 20 ms apart, each sending on its own 80 ms grid (drift-corrected), as real clients would.
  let frames = 0;
  let running = true;
  const groups = [0, 1, 2, 3].map(async (group) => {
    const members = sessions.filter((_, i) => i % 4 === group);
    const start = performance.now() + group * (FRAME_MS / 4);
    for (let tick = 0; running; tick++) {
      const wait = start + tick * FRAME_MS - performance.now();
      if (wait > 0) await sleep(wait);
      for (const session of members) if (!session.closed) session.sendFrame();
      frames += members.length;
    }
  });
  await sleep(options.warmupMs);
  recording = true;
  const [cpu0, frames0] = [cpuSeconds(server.pid) ?? 0, frames];
  await sleep(options.windowMs);
  const [cpu1, frames1] = [cpuSeconds(server.pid) ?? 0, frames];
  recording = false;
  running = false;
  await Promise.all(groups);
  await Promise.all(sessions.map(endSession));
  await sleep(SETTLE_MS); // the closes' writes and the garbage they leave land before the next phase
  const phase: Phase = {
    dialect,
    round: roundNo,
    sessions: sessions.length,
    frames: frames1 - frames0,
    cpuPerFrameUs: round(((cpu1 - cpu0) * 1e6) / Math.max(1, frames1 - frames0), 1),
    latencyMs: distribution(latencies),
    failedSessions: sessions.filter((s) => s.failed).length,
  };
  return { phase, latencies };
}

// ---- parent: the run -------------------------------------------------------------------------------

interface Options {
  sessions: number;
  warmupMs: number;
  windowMs: number;
  rounds: number;
}

function parseOptions(argv: string[]): Options {
  const value = (name: string, fallback: number) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const quick = argv.includes('--quick');
  return {
    sessions: value('sessions', quick ? 30 : 100),
    warmupMs: value('warmup', 2) * 1000,
    windowMs: value('window', quick ? 4 : 8) * 1000,
    rounds: value('rounds', quick ? 1 : 3),
  };
}

function startServer(url: string): Promise<{ child: ChildProcess; pid: number; ready: Ready }> {
  const child = fork(__filename, ['--serve', url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (ready: Ready) => resolve({ child, pid: child.pid!, ready }));
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before it was ready`)));
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const database = await createScratchDatabase('dialects');
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    server = await startServer(database.url);
    await measure(server, 'live', { ...options, sessions: 20, warmupMs: 1000, windowMs: 1000 }, 0); // JIT, pools
    const phases: Phase[] = [];
    const latencies: Record<Dialect, number[]> = { live: [], realtime: [], listen: [], 'listen-16k': [] };
    for (let r = 1; r <= options.rounds; r++) {
      for (const dialect of r % 2 === 1 ? DIALECTS : [...DIALECTS].reverse()) {
        const { phase, latencies: samples } = await measure(server, dialect, options, r);
        phases.push(phase);
        latencies[dialect].push(...samples);
        const { p50, p99 } = phase.latencyMs;
        process.stdout.write(
          `  round ${r} ${dialect.padEnd(8)} ${phase.sessions} sessions: ${phase.cpuPerFrameUs} µs CPU/frame, ` +
            `word latency p50 ${p50} ms p99 ${p99} ms, failed ${phase.failedSessions}\n`,
        );
      }
    }
    const summary = Object.fromEntries(
      DIALECTS.map((dialect) => {
        const own = phases.filter((p) => p.dialect === dialect);
        return [
          dialect,
          {
            cpuPerFrameUs: median(own.map((p) => p.cpuPerFrameUs)),
            wordLatencyP99Ms: median(own.map((p) => p.latencyMs.p99)),
            latencyMs: distribution(latencies[dialect]),
            phases: own.length,
          },
        ];
      }),
    ) as Record<Dialect, { cpuPerFrameUs: number; wordLatencyP99Ms: number; latencyMs: Distribution; phases: number }>;
    const ratio = (d: Dialect) => round(summary[d].cpuPerFrameUs / Math.max(0.001, summary.live.cpuPerFrameUs), 2);
    const compat = DIALECTS.filter((d) => d !== 'live');
    const failed = phases.reduce((sum, p) => sum + p.failedSessions, 0);
    const met =
      compat.every((d) => ratio(d) <= CPU_RATIO_LIMIT) &&
      compat.every((d) => summary[d].wordLatencyP99Ms < P99_LIMIT_MS) &&
      failed === 0;
    const headline =
      `${options.sessions} sessions, CPU/frame: live ${summary.live.cpuPerFrameUs} µs, ` +
      compat.map((d) => `${d} ${summary[d].cpuPerFrameUs} µs (${ratio(d)}x)`).join(', ') +
      `; word p99 ${DIALECTS.map((d) => summary[d].wordLatencyP99Ms).join('/')} ms`;
    const ratioToLive = Object.fromEntries(compat.map((d) => [d, ratio(d)]));
    const path = writeReport({
      name: 'socket-dialects',
      headline,
      results: { options, summary, ratioToLive, phases },
      targets: { cpuRatioToLiveAtMost: CPU_RATIO_LIMIT, wordLatencyP99BelowMs: P99_LIMIT_MS, failedSessions: 0 },
      met,
    });
    process.stdout.write(`${headline}\n→ ${path}\n`);
  } finally {
    if (server !== null) {
      const exited = new Promise((resolve) => server!.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
    await database.drop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : round((sorted[middle - 1] + sorted[middle]) / 2, 1);
}

if (process.argv[2] === '--serve') {
  void serve(process.argv[3]);
} else {
  main().catch((error: unknown) => {
    process.stderr.write(`socket-dialects bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
