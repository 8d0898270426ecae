/**
 * WebRTC calls beside WebSocket sessions on the same conversation path: the service as its own process
 * (dist/src/main.js) with `vendor-voicechat` served by the cascade, its chat and speech upstreams fake
 * servers in this process that answer at once, and the scripted engine as the listener (it hears
 * loudness, so recognition costs nothing and the figures are the transport's and the session layer's).
 *
 *   npm run build && node dist/bench/webrtc.bench.js [--quick]
 *
 * For 1, 10 and 50 concurrent sessions (--quick: 1 and 10), first as WebRTC calls (node-datachannel
 * client peers in this process, POST /v1/realtime/calls, Opus packets every 20 ms), then as Realtime
 * sockets (`/v1/realtime?model=vendor-voicechat`, 20 ms `input_audio_buffer.append`s): every session
 * speaks the same 2 s cycle (480 ms of a loud square wave, then silence) for the window, and each turn
 * is answered.
 *   CPU per session  the service's utime+stime over the window (/proc) / sessions, in % of one core;
 *                    sessions per core = 100 / that
 *   voice to voice   last voiced packet (or append) sent → first answer audio received (an RTP packet,
 *                    or a `response.output_audio.delta`); it includes the turn detector's silence wait
 *                    (the same on both paths) and the client's side of the transport.
 * BENCH_DEBUG=1 runs one session per path and prints the call's events and the service's log.
 * Results: bench/results/webrtc.json.
 *
 * Not yet trustworthy (2026-12-06): on the WebRTC path a call's first turn is answered, then at the
 * second turn's response.created no further event arrives on the Node client (Realtime sockets on the
 * same service answer every turn), so WebRTC voice-to-voice samples are missing and its CPU figure is
 * of a stalled call; the e2e specs (Node and Chromium) answer repeated turns. To be found before the
 * figures count. (Client SSRCs of 2^31 and above stalled it at the first turn: libdatachannel.)
 */
import { randomInt } from 'node:crypto';
import { loadavg } from 'node:os';
import { Audio, cleanup, initLogger, PeerConnection, type LogLevel } from 'node-datachannel';
import WebSocket from 'ws';
import { OpusEncoder } from '../libs/opus';
import { startFakeChatServer } from '../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../src/engines/cascade/testing/fake-speech-server';
import { isRtcp, writeRtp } from '../src/gateway/webrtc/rtp';
import { Resampler } from '../src/platform/audio/resampler';
import { cpuSeconds, rssMb } from './support/proc-usage';
import { writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { ServiceProcess } from './support/service-process';
import { distribution, type Distribution } from './support/stats';

const quick = process.argv.includes('--quick');
const STEPS = process.env.BENCH_STEPS
  ? process.env.BENCH_STEPS.split(',').map(Number)
  : process.env.BENCH_DEBUG
    ? [1]
    : quick
      ? [1, 10]
      : [1, 10, 50];
if (process.env.BENCH_RTC_LOG)
  initLogger(process.env.BENCH_RTC_LOG as LogLevel, (level, message) => process.stdout.write(`rtc ${level} ${message}\n`));
const WINDOW_MS = quick ? 10_000 : 20_000;
const KEY = `wk_${'b'.repeat(40)}`;
const CYCLE_FRAMES = 100; // 2 s of 20 ms frames
const VOICED_FRAMES = 24; // 480 ms

interface Session {
  /** Sends frame `i` of the cycle. */
  frame(i: number): void;
  /** ms from each turn's last voiced frame to its first answer audio. */
  readonly voiceToVoice: number[];
  /** Turns spoken (their last voiced frame sent). */
  readonly spoken: { turns: number };
  /** True once the session's connection is gone (counted: a call lost mid-window spoils the figures). */
  readonly ended: boolean;
  close(): void;
}

/** The cycle as 24 kHz pcm16 frames (the socket's appends) and as Opus packets (the call's). */
function cycle(): { pcm: Buffer[]; opus: Buffer[] } {
  const pcm: Buffer[] = [];
  for (let f = 0; f < CYCLE_FRAMES; f++) {
    const frame = Buffer.alloc(960);
    if (f < VOICED_FRAMES) for (let i = 0; i < 480; i++) frame.writeInt16LE(i % 48 < 24 ? 4000 : -4000, i * 2);
    pcm.push(frame);
  }
  const up = new Resampler(24000, 48000);
  const encoder = new OpusEncoder();
  const opus = pcm.map((frame) => {
    const out = up.processPcm16(frame);
    const samples = new Int16Array(960);
    for (let i = 0; i < Math.min(960, out.length >> 1); i++) samples[i] = out.readInt16LE(i * 2);
    return encoder.encode(samples);
  });
  return { pcm, opus };
}

/** The turn's clock: when its last voiced frame left, and whether its answer was timed yet. */
function turnClock() {
  let voicedAt: number | null = null;
  const samples: number[] = [];
  const spoken = { turns: 0 };
  return {
    samples,
    spoken,
    sent(i: number) {
      if (i !== VOICED_FRAMES - 1) return;
      voicedAt = performance.now();
      spoken.turns++;
    },
    heard() {
      if (voicedAt === null) return;
      samples.push(performance.now() - voicedAt);
      voicedAt = null;
    },
  };
}

/**
 * A call, tried again when its setup fails: libdatachannel (this client) checks the answer's DTLS
 * fingerprint before it has stored the answer when the service's DTLS hello comes in during
 * setRemoteDescription ("certificate verify failed", then "Got a remote candidate without ICE
 * transport"). The service answers `a=setup:active` as RFC 5763 recommends, so its hello races the
 * client's handling of the answer; a browser waits for the fingerprint. The retries are counted.
 */
async function openCall(baseUrl: string, opus: Buffer[], retried: { calls: number }): Promise<Session> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await tryCall(baseUrl, opus);
    } catch (error) {
      if (attempt === 3) throw error;
      retried.calls++;
      if (process.env.BENCH_DEBUG) process.stdout.write(`client: call setup failed (${String(error)}), again\n`);
    }
  }
}

/**
 * Every client peer's objects, held until the process exits: node-datachannel closes what the GC
 * collects, and a wrapper collected after its peer closed (a failed setup's, a finished step's) now
 * and then crashed the process (SIGSEGV or SIGBUS) before it wrote its report.
 */
const keptAlive: object[] = [];

async function tryCall(baseUrl: string, opus: Buffer[]): Promise<Session> {
  const pc = new PeerConnection('bench', { iceServers: [] });
  let failed = false;
  pc.onStateChange((state) => {
    if (state === 'failed' || state === 'closed') failed = true;
    if (process.env.BENCH_DEBUG) process.stdout.write(`client ${new Date().toISOString()} pc ${state}\n`);
  });
  const gathered = new Promise<void>((resolve) => pc.onGatheringStateChange((s) => s === 'complete' && resolve()));
  const media = new Audio('0', 'SendRecv');
  media.addOpusCodec(111);
  const ssrc = randomInt(1, 0x7fffffff);
  media.addSSRC(ssrc, 'bench', 'bench', 'mic');
  const track = pc.addTrack(media);
  const clock = turnClock();
  let answering = false;
  track.onMessage((packet) => {
    if (isRtcp(packet) || answering) return;
    answering = true;
    clock.heard();
  });
  const channel = pc.createDataChannel('oai-events');
  keptAlive.push(pc, media, track, channel);
  channel.onMessage((message) => {
    if (process.env.BENCH_DEBUG) process.stdout.write(`${String(message).slice(0, 120)}\n`);
    if (String(message).includes('"output_audio_buffer.stopped"')) answering = false;
  });
  try {
    // createDataChannel starts the negotiation itself (libdatachannel's auto-negotiation): no setLocalDescription here.
    await gathered;
    const res = await fetch(`${baseUrl}/v1/realtime/calls`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/sdp' },
      body: pc.localDescription()!.sdp,
    });
    if (res.status !== 201) throw new Error(`calls answered ${res.status}: ${await res.text()}`);
    pc.setRemoteDescription(await res.text(), 'answer');
    const started = Date.now();
    while (!channel.isOpen() || !track.isOpen()) {
      if (failed || Date.now() - started > 15_000) throw new Error('the call did not connect');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } catch (error) {
    pc.close();
    throw error;
  }
  let sequence = 0;
  // The channel, track and peer stay referenced here for the call's life: node-datachannel closes a
  // DataChannel whose JS object is garbage-collected, and the service then ends the session as the
  // client's close (close_requested). Held only by its onMessage callback, the bench's channel was
  // collected within seconds: that was the WebRTC "stall after the first turns".
  const held = { pc, track, channel };
  return {
    frame(i) {
      if (!held.track.isOpen()) return;
      held.track.sendMessageBinary(
        writeRtp({ payloadType: 111, sequence: sequence++, timestamp: sequence * 960, ssrc, marker: false }, opus[i]),
      );
      clock.sent(i);
    },
    voiceToVoice: clock.samples,
    spoken: clock.spoken,
    get ended() {
      return failed || !held.channel.isOpen();
    },
    close() {
      held.channel.close();
      held.pc.close();
    },
  };
}

async function openSocket(baseUrl: string, pcm: Buffer[]): Promise<Session> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/realtime?model=vendor-voicechat`, {
    headers: { Authorization: `Bearer ${KEY}` },
  });
  const clock = turnClock();
  let answering = false;
  ws.on('message', (data) => {
    const text = String(data);
    if (text.startsWith('{"type":"response.output_audio.delta"')) {
      if (!answering) clock.heard();
      answering = true;
    } else if (text.startsWith('{"type":"response.done"')) answering = false;
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const appends = pcm.map((frame) =>
    JSON.stringify({ type: 'input_audio_buffer.append', audio: frame.toString('base64') }),
  );
  return {
    frame(i) {
      ws.send(appends[i]);
      clock.sent(i);
    },
    voiceToVoice: clock.samples,
    spoken: clock.spoken,
    get ended() {
      return ws.readyState !== WebSocket.OPEN;
    },
    close: () => ws.close(),
  };
}

interface StepResult {
  path: 'webrtc' | 'websocket';
  sessions: number;
  /** The service's CPU seconds per second of each session: the figure that carries over to another machine's load. */
  cpuSecondsPerSessionSecond: number;
  cpuPercentPerSession: number;
  sessionsPerCore: number;
  serviceRssMb: number | null;
  voiceToVoiceMs: Distribution;
  turnsSpoken: number;
  turnsAnswered: number;
  /** Sessions whose connection was gone at the window's end (0, or the figures are not of live sessions). */
  sessionsEnded: number;
  /** Calls whose setup the client tried again (openCall). */
  setupRetries: number;
  /** The machine's 1-minute load average at the window's end: wall-clock latencies grow with it. */
  loadAverage: number;
}

async function step(
  service: ServiceProcess,
  path: StepResult['path'],
  count: number,
  open: (retried: { calls: number }) => Promise<Session>,
): Promise<StepResult> {
  const retried = { calls: 0 };
  const sessions: Session[] = [];
  for (let i = 0; i < count; i++) sessions.push(await open(retried));
  const startedAt = performance.now();
  let frame = 0;
  // Every session's frame `frame % cycle` goes out on one 20 ms clock, with each session's cycle offset.
  const timer = setInterval(() => {
    const due = Math.floor((performance.now() - startedAt) / 20);
    for (; frame <= due; frame++) {
      sessions.forEach((s, k) => s.frame((frame + k * 7) % CYCLE_FRAMES));
    }
  }, 10);
  const collector = process.env.BENCH_GC && global.gc ? setInterval(() => global.gc!(), 4000) : null;
  await new Promise((resolve) => setTimeout(resolve, 3000)); // warm-up: the first turns
  const cpu0 = cpuSeconds(service.pid)!;
  const t0 = performance.now();
  for (const s of sessions) {
    s.voiceToVoice.length = 0;
    s.spoken.turns = 0;
  }
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const cpu = cpuSeconds(service.pid)! - cpu0;
  const seconds = (performance.now() - t0) / 1000;
  const rss = rssMb(service.pid);
  clearInterval(timer);
  if (collector) clearInterval(collector);
  const samples = sessions.flatMap((s) => s.voiceToVoice);
  const spoken = sessions.reduce((n, s) => n + s.spoken.turns, 0);
  const ended = sessions.filter((s) => s.ended).length;
  for (const s of sessions) s.close();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const perSession = ((cpu / seconds) * 100) / count;
  const result: StepResult = {
    path,
    sessions: count,
    cpuSecondsPerSessionSecond: Math.round((perSession / 100) * 10000) / 10000,
    cpuPercentPerSession: Math.round(perSession * 100) / 100,
    sessionsPerCore: Math.round(100 / perSession),
    serviceRssMb: rss === null ? null : Math.round(rss),
    voiceToVoiceMs: distribution(samples),
    turnsSpoken: spoken,
    turnsAnswered: samples.length,
    sessionsEnded: ended,
    setupRetries: retried.calls,
    loadAverage: Math.round(loadavg()[0] * 100) / 100,
  };
  process.stdout.write(
    `${path.padEnd(9)} ${String(count).padStart(3)} sessions: ${result.cpuPercentPerSession}% of a core each ` +
      `(${result.sessionsPerCore}/core), voice to voice p50 ${result.voiceToVoiceMs.p50} ms p90 ${result.voiceToVoiceMs.p90} ms ` +
      `(${samples.length} of ${spoken} turns answered), RSS ${result.serviceRssMb} MB; ${ended} ended, ` +
      `${retried.calls} setups retried, load ${result.loadAverage}\n`,
  );
  return result;
}

async function main(): Promise<void> {
  const chat = await startFakeChatServer(() => ({ kind: 'reply', pieces: ['Hi.'] }));
  const speech = await startFakeSpeechServer(() => ({ msPerChar: 60, chunkMs: 100, chunkEveryMs: 1 }));
  const database = await createScratchDatabase('webrtc');
  const engines = {
    engines: {
      listen: { kind: 'scripted', maxStreams: 128 },
      voicechat: {
        kind: 'cascade',
        listener: 'listen',
        languages: ['en'],
        chat: { url: chat.baseUrl, model: 'bench', timeoutMs: 5000 },
        speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
      },
    },
    models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
  };
  const service = await ServiceProcess.start('webrtc', {
    DATABASE_URL: database.url,
    ENGINES_JSON: JSON.stringify(engines),
    STARTING_API_KEY: KEY,
    ENGINE_MAX_STREAMS: '128',
    PROJECT_STREAMS_PER_INSTANCE: '128',
    CONCURRENT_SESSIONS_LIMIT: '200',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    MAX_SESSION_SECONDS: '3600',
    WEBRTC_UDP_PORT: String(40000 + randomInt(20000)),
    LOG_LEVEL: process.env.BENCH_DEBUG ? 'debug' : 'warn',
  });
  const results: StepResult[] = [];
  try {
    const { pcm, opus } = cycle();
    for (const count of STEPS) {
      results.push(await step(service, 'webrtc', count, (retried) => openCall(service.baseUrl, opus, retried)));
      results.push(await step(service, 'websocket', count, () => openSocket(service.baseUrl, pcm)));
    }
  } finally {
    if (process.env.BENCH_DEBUG) process.stdout.write(service.output.join('').slice(-4000));
    await service.stop();
    await chat.close();
    await speech.close();
    await database.drop();
    cleanup();
  }
  const at = (path: StepResult['path']) => results.filter((r) => r.path === path).at(-1)!;
  const largest = at('webrtc');
  writeReport({
    name: 'webrtc',
    headline:
      `${largest.sessions} WebRTC calls: ${largest.cpuPercentPerSession}% of a core each (${largest.sessionsPerCore}/core) ` +
      `vs ${at('websocket').cpuPercentPerSession}% over WebSocket; voice to voice p50 ${largest.voiceToVoiceMs.p50} ms`,
    results: { steps: results, windowMs: WINDOW_MS },
    targets: { note: 'no target yet: the first figures of WebRTC calls' },
    met: true,
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
