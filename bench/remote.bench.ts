/**
 * Remote engine benchmark: what a gateway adds in front of a transcription worker.
 *
 *   npm run build && node dist/bench/remote.bench.js [--sessions 40] [--streams 500] [--seconds 10] [--quick]
 *
 * Three processes: a fast fake worker (bench/support/fast-realtime-worker.ts: one delta per
 * appended frame, a completed per commit, OpenAI Realtime protocol), a Continuum gateway (createApp,
 * `vendor-asr-streaming` served by a remote engine pointing at the worker, metering to a scratch
 * PostgreSQL database), and this load generator. Sessions use manual turns (turn_detection null),
 * so the gateway runs no VAD: the figures are the relay's own (VAD costs about 0.2 ms per 32 ms
 * frame per stream on top, see bench/results/engine.json).
 *
 * 1. Latency, direct vs through the gateway (interleaved rounds): N sessions each stream 80 ms
 *    frames in real time and commit every 15 frames. Per frame: append sent → its delta received.
 *    Per final: commit sent → completed received. Added = gateway p50/p99 − direct p50/p99, the
 *    median over five rounds (a round's p99 of finals is its third-worst, so one stall moves it).
 * 2. Relay capacity: M sessions through the gateway at once for S seconds; the gateway's CPU
 *    (/proc utime+stime) per stream, the share of frames whose delta came back, and their latency.
 *
 * Targets: added p99 < 5 ms per frame and per final; M ≥ 500 streams relayed (every session open,
 * ≥ 99 % of deltas back). Results: bench/results/remote.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { startFastWorker } from './support/fast-realtime-worker';
import { cpuSeconds, stealSeconds } from './support/proc-usage';
import { round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { distribution, type Distribution } from './support/stats';

const FRAME_MS = 80;
const FRAMES_PER_UTTERANCE = 15;
const ADDED_P99_LIMIT_MS = 5;
const STREAMS_TARGET = 500;

// ---- children ----------------------------------------------------------------------------------------

async function serveWorker(): Promise<void> {
  process.send!({ port: await startFastWorker() });
}

async function serveGateway(databaseUrl: string, workerPort: string): Promise<void> {
  tuneHeapForStreaming(); // as main.ts does: the gateway is measured as it runs in production
  const engines = {
    engines: {
      workers: {
        kind: 'remote',
        protocol: 'openai-realtime',
        workers: [`ws://127.0.0.1:${workerPort}/v1/realtime`],
        maxStreamsPerWorker: 5000,
        stallTimeoutMs: 30_000,
      },
      local: { kind: 'scripted' },
    },
    models: { 'vendor-asr-streaming': 'workers', 'vendor-voicechat': 'local' },
  };
  const config = new AppConfig({
    DATABASE_URL: databaseUrl,
    ENGINES_JSON: JSON.stringify(engines),
    CONCURRENT_SESSIONS_LIMIT: '100000',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
    STARTING_CREDIT_USD: '100000',
    LOG_LEVEL: 'warn',
    SHUTDOWN_GRACE_SECONDS: '0',
    MAX_SESSION_SECONDS: '600',
  });
  const app = await createApp({
    config,
    database: new DatabaseLocation(databaseUrl, null),
    logger: createRootLogger('warn'),
  });
  await app.listen(0, '127.0.0.1');
  const { secret } = await app.get(ProjectsService).createProject('bench-remote');
  process.once('SIGTERM', () => void app.close().finally(() => process.exit(0)));
  process.send!({ port: (app.getHttpServer().address() as AddressInfo).port, apiKey: secret });
}

function start<T>(args: string[]): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(__filename, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (ready) => resolve({ child, ready: ready as T }));
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

// ---- load generator ------------------------------------------------------------------------------------

const APPEND = JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3840).toString('base64') });
const COMMIT = JSON.stringify({ type: 'input_audio_buffer.commit' });
const MANUAL = JSON.stringify({
  type: 'session.update',
  session: { type: 'transcription', audio: { input: { turn_detection: null } } },
});

class Stream {
  private readonly frames: number[] = [];
  private readonly commits: number[] = [];
  private step = 0;
  sent = 0;
  answered = 0;
  failed = false;

  constructor(
    readonly ws: WebSocket,
    private readonly frameLatency: number[],
    private readonly finalLatency: number[],
  ) {
    ws.on('message', (data: Buffer) => {
      const head = data.toString('latin1', 0, 64);
      if (head.includes('transcription.delta')) {
        this.answered++;
        const at = this.frames.shift();
        if (at !== undefined) frameLatency.push(performance.now() - at);
      } else if (head.includes('transcription.completed')) {
        const at = this.commits.shift();
        if (at !== undefined) finalLatency.push(performance.now() - at);
      } else if (head.includes('"type":"error"')) this.failed = true;
    });
    ws.on('close', () => (this.failed = true));
  }

  static async open(
    url: string,
    apiKey: string | null,
    frameLatency: number[],
    finalLatency: number[],
  ): Promise<Stream> {
    const ws = new WebSocket(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(MANUAL);
    return new Stream(ws, frameLatency, finalLatency);
  }

  tick(): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.frames.push(performance.now());
    this.ws.send(APPEND);
    this.sent++;
    if (++this.step % FRAMES_PER_UTTERANCE === 0) {
      this.commits.push(performance.now());
      this.ws.send(COMMIT);
    }
  }
}

/** Opens `count` streams and runs them in real time (spread over the frame period) for `seconds`. */
async function run(url: string, apiKey: string | null, count: number, seconds: number, cpuPid?: number) {
  const frameLatency: number[] = [];
  const finalLatency: number[] = [];
  const streams: Stream[] = [];
  for (let i = 0; i < count; i += 25) {
    const batch = Math.min(25, count - i);
    streams.push(
      ...(await Promise.all(Array.from({ length: batch }, () => Stream.open(url, apiKey, frameLatency, finalLatency)))),
    );
  }
  await sleep(300);
  const cpuBefore = cpuPid ? cpuSeconds(cpuPid) : null;
  const started = performance.now();
  const ticks = Math.round((seconds * 1000) / FRAME_MS);
  // Each stream sends at its own phase of the frame period, as independent clients would (sending
  // them all at once made a burst that measured the gateway's queue, not its added latency).
  const slot = FRAME_MS / streams.length;
  for (let t = 0; t < ticks; t++) {
    for (let i = 0; i < streams.length; i++) {
      const wait = started + t * FRAME_MS + i * slot - performance.now();
      if (wait >= 1) await sleep(wait);
      streams[i].tick();
    }
  }
  await sleep(Math.max(0, started + ticks * FRAME_MS - performance.now()));
  await sleep(500);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuPid && cpuBefore !== null ? (cpuSeconds(cpuPid)! - cpuBefore) / elapsed : null;
  const sent = streams.reduce((n, s) => n + s.sent, 0);
  const answered = streams.reduce((n, s) => n + s.answered, 0);
  const failed = streams.filter((s) => s.failed).length;
  for (const s of streams) s.ws.close(1000);
  await sleep(300);
  return {
    frame: distribution(frameLatency),
    final: distribution(finalLatency),
    sent,
    answered,
    failed,
    cpuShare: cpu,
    // CPU per relayed frame: steadier than a share of a core on a machine others also use.
    cpuPerFrameUs: cpu === null || answered === 0 ? null : round((cpu * elapsed * 1e6) / answered, 1),
  };
}

interface Options {
  sessions: number;
  streams: number;
  seconds: number;
  rounds: number;
}

function parseOptions(argv: string[]): Options {
  const value = (name: string, fallback: number) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? Number(argv[at + 1]) : fallback;
  };
  const quick = argv.includes('--quick');
  return {
    sessions: value('sessions', quick ? 10 : 40),
    streams: value('streams', quick ? 100 : STREAMS_TARGET),
    seconds: value('seconds', quick ? 3 : 8),
    rounds: value('rounds', quick ? 1 : 5),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const db = await createScratchDatabase('remote');
  const worker = await start<{ port: number }>(['--worker']);
  const gateway = await start<{ port: number; apiKey: string }>(['--gateway', db.url, String(worker.ready.port)]);
  const direct = `ws://127.0.0.1:${worker.ready.port}/v1/realtime?intent=transcription`;
  const viaGateway = `ws://127.0.0.1:${gateway.ready.port}/v1/realtime?intent=transcription`;
  try {
    const rounds: Array<{ direct: Distribution[]; gateway: Distribution[] }> = [];
    const stealBefore = stealSeconds();
    const latencyStarted = performance.now();
    for (let r = 0; r < options.rounds; r++) {
      const d = await run(direct, null, options.sessions, options.seconds);
      const g = await run(viaGateway, gateway.ready.apiKey, options.sessions, options.seconds);
      rounds.push({ direct: [d.frame, d.final], gateway: [g.frame, g.final] });
    }
    const added = (index: 0 | 1, key: 'p50' | 'p99') =>
      round(median(rounds.map((x) => x.gateway[index][key] - x.direct[index][key])), 2);
    const stealAfter = stealSeconds();
    const latency = {
      frame: { addedP50: added(0, 'p50'), addedP99: added(0, 'p99') },
      final: { addedP50: added(1, 'p50'), addedP99: added(1, 'p99') },
      // CPU the hypervisor took while the rounds ran, ms per second: stalls no process here can avoid.
      stealMsPerSecond:
        stealBefore === null || stealAfter === null
          ? null
          : round(((stealAfter - stealBefore) * 1e6) / (performance.now() - latencyStarted), 2),
      rounds,
    };
    const load = await run(viaGateway, gateway.ready.apiKey, options.streams, options.seconds, gateway.child.pid);
    const answeredShare = load.sent === 0 ? 0 : load.answered / load.sent;
    const relayed = load.failed === 0 && answeredShare >= 0.99 ? options.streams : 0;
    const cpuPerStreamPct = load.cpuShare === null ? null : round((load.cpuShare * 100) / options.streams, 3);
    const met =
      latency.frame.addedP99 < ADDED_P99_LIMIT_MS &&
      latency.final.addedP99 < ADDED_P99_LIMIT_MS &&
      relayed >= STREAMS_TARGET;
    const path = writeReport({
      name: 'remote',
      headline:
        `added p99 ${latency.frame.addedP99} ms/frame, ${latency.final.addedP99} ms/final; ` +
        `${options.streams} streams: ${round(answeredShare * 100, 2)}% relayed, ${load.failed} failed, ` +
        `gateway CPU ${cpuPerStreamPct}% of a core per stream (${load.cpuPerFrameUs} µs/frame), ` +
        `frame p99 ${load.frame.p99} ms (load ${loadavg()[0].toFixed(1)})`,
      results: {
        options,
        latency,
        load: { ...load, answeredShare: round(answeredShare, 4), cpuPerStreamPct, relayed },
      },
      targets: { addedP99Ms: ADDED_P99_LIMIT_MS, streams: STREAMS_TARGET, answeredShare: 0.99 },
      met,
    });
    process.stdout.write(`remote: ${met ? 'met' : 'missed'}; report ${path}\n`);
  } finally {
    // The gateway records its sessions' closes: the database goes only once it has exited.
    const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const gatewayExited = exited(gateway.child);
    gateway.child.kill('SIGTERM');
    await Promise.race([gatewayExited, sleep(15_000)]);
    worker.child.kill('SIGTERM');
    await db.drop();
  }
}

if (process.argv[2] === '--worker') void serveWorker();
else if (process.argv[2] === '--gateway') void serveGateway(process.argv[3], process.argv[4]);
else
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
