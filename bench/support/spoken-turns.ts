/**
 * Sessions that speak turns on one clock, for benches comparing transports on the same conversation
 * path (webrtc, telephony): every session speaks the same 2 s cycle (480 ms of a loud square wave,
 * then silence), its cycle offset from the others', and each turn is answered. A step opens the
 * sessions, warms up, measures the service's CPU over a window, and times each turn from its last
 * voiced frame sent to the first answer audio received.
 */
import { loadavg } from 'node:os';
import WebSocket from 'ws';
import { cpuSeconds, rssMb } from './proc-usage';
import type { ServiceProcess } from './service-process';
import { distribution, type Distribution } from './stats';

export const CYCLE_FRAMES = 100; // 2 s of 20 ms frames
export const VOICED_FRAMES = 24; // 480 ms
const WARM_UP_MS = 3000;
/** After the window, answers to the turns spoken in it still count (none spoken after it does). */
const LAST_ANSWERS_MS = 1500;

/** One turn's timing: from its last voiced frame sent to its first answer audio received. */
export class TurnClock {
  readonly samples: number[] = [];
  turns = 0;
  private counting = false;
  private voicedAt: number | null = null;

  /** Turns spoken from now on are counted and timed. */
  start(): void {
    this.counting = true;
    this.samples.length = 0;
    this.turns = 0;
    this.voicedAt = null;
  }

  /** No new turn counts; the answers of those already spoken still do. */
  stop(): void {
    this.counting = false;
  }

  sent(frame: number): void {
    if (frame !== VOICED_FRAMES - 1 || !this.counting) return;
    this.voicedAt = performance.now();
    this.turns++;
  }

  heard(): void {
    if (this.voicedAt === null) return;
    this.samples.push(performance.now() - this.voicedAt);
    this.voicedAt = null;
  }
}

export interface SpeakingSession {
  /** Sends frame `i` of the cycle. */
  frame(i: number): void;
  readonly clock: TurnClock;
  /** True once the session's connection is gone (a session lost mid-window spoils the figures). */
  readonly ended: boolean;
  close(): void;
}

/** The cycle as 24 kHz pcm16, one 960-byte buffer per 20 ms frame. */
export function cyclePcm24k(): Buffer[] {
  const pcm: Buffer[] = [];
  for (let f = 0; f < CYCLE_FRAMES; f++) {
    const frame = Buffer.alloc(960);
    if (f < VOICED_FRAMES) for (let i = 0; i < 480; i++) frame.writeInt16LE(i % 48 < 24 ? 4000 : -4000, i * 2);
    pcm.push(frame);
  }
  return pcm;
}

/** A Realtime socket at 24 kHz pcm16 (`input_audio_buffer.append` every 20 ms): the baseline of every path. */
export async function openRealtimeSocket(baseUrl: string, key: string, pcm: Buffer[]): Promise<SpeakingSession> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/realtime?model=vendor-voicechat`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  const clock = new TurnClock();
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
    clock,
    get ended() {
      return ws.readyState !== WebSocket.OPEN;
    },
    close: () => ws.close(),
  };
}

export interface StepResult {
  path: string;
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
  /** Sessions whose setup the client tried again. */
  setupRetries: number;
  /** The machine's 1-minute load average at the window's end: wall-clock latencies grow with it. */
  loadAverage: number;
}

/**
 * `count` sessions of one path speaking for `windowMs`: the service's CPU over the window, and voice
 * to voice of the turns spoken in it. `open` may count the setups it had to try again.
 */
export async function speakingStep(
  service: ServiceProcess,
  path: string,
  count: number,
  windowMs: number,
  open: (retried: { count: number }) => Promise<SpeakingSession>,
): Promise<StepResult> {
  const retried = { count: 0 };
  const sessions: SpeakingSession[] = [];
  const startedAt = performance.now();
  let frame = 0;
  // Every open session's frame `frame % cycle` goes out on one 20 ms clock, with each session's cycle
  // offset. A session speaks from the moment it is open, as a microphone does: 50 calls take long
  // enough to set up that the first would otherwise end idle (SESSION_IDLE_SECONDS) before the last opened.
  const timer = setInterval(() => {
    const due = Math.floor((performance.now() - startedAt) / 20);
    for (; frame <= due; frame++) sessions.forEach((s, k) => s.frame((frame + k * 7) % CYCLE_FRAMES));
  }, 10);
  for (let i = 0; i < count; i++) sessions.push(await open(retried));
  const collector = process.env.BENCH_GC && global.gc ? setInterval(() => global.gc!(), 4000) : null;
  await sleep(WARM_UP_MS);
  const cpu0 = cpuSeconds(service.pid)!;
  const t0 = performance.now();
  for (const s of sessions) s.clock.start();
  await sleep(windowMs);
  const cpu = cpuSeconds(service.pid)! - cpu0;
  const seconds = (performance.now() - t0) / 1000;
  const rss = rssMb(service.pid);
  const load = loadavg()[0];
  for (const s of sessions) s.clock.stop();
  await sleep(LAST_ANSWERS_MS);
  clearInterval(timer);
  if (collector) clearInterval(collector);
  const samples = sessions.flatMap((s) => s.clock.samples);
  const spoken = sessions.reduce((n, s) => n + s.clock.turns, 0);
  const ended = sessions.filter((s) => s.ended).length;
  for (const s of sessions) s.close();
  await sleep(3000);
  const perSession = cpu / seconds / count;
  const result: StepResult = {
    path,
    sessions: count,
    cpuSecondsPerSessionSecond: Math.round(perSession * 10000) / 10000,
    cpuPercentPerSession: Math.round(perSession * 10000) / 100,
    sessionsPerCore: Math.round(1 / perSession),
    serviceRssMb: rss === null ? null : Math.round(rss),
    voiceToVoiceMs: distribution(samples),
    turnsSpoken: spoken,
    turnsAnswered: samples.length,
    sessionsEnded: ended,
    setupRetries: retried.count,
    loadAverage: Math.round(load * 100) / 100,
  };
  process.stdout.write(
    `${path.padEnd(9)} ${String(count).padStart(3)} sessions: ${result.cpuPercentPerSession}% of a core each ` +
      `(${result.sessionsPerCore}/core), voice to voice p50 ${result.voiceToVoiceMs.p50} ms p90 ${result.voiceToVoiceMs.p90} ms ` +
      `(${samples.length} of ${spoken} turns answered), RSS ${result.serviceRssMb} MB; ${ended} ended, ` +
      `${retried.count} setups retried, load ${result.loadAverage}\n`,
  );
  return result;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
