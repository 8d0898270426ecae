/**
 * One step of the load: N sessions connect and start, then stream together at real time —
 * each 80 ms, with its own phase inside the frame period and its own place in the script — for a
 * warm-up, the measurement window and a short tail; then they close. The window's edges call
 * back so the caller can read the server's CPU at exactly the instants the frame count covers.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { LoadRecorder, type LoadObservation } from './load-recorder';
import { LoadSession, type SocketTarget } from './load-session';
import { CYCLE_FRAMES, FRAME_MS } from './script';

export interface LoadStepOptions {
  sessions: number;
  target: SocketTarget;
  warmupMs: number;
  windowMs: number;
  seed: number;
}

export interface WindowHooks {
  /**
   * Called as the window opens and closes; the window counts the frames sent between the two
   * calls, so a hook takes its readings synchronously, before it awaits anything.
   */
  opened(): Promise<void>;
  closed(): Promise<void>;
}

export interface LoadStepResult {
  observation: LoadObservation;
  /** Sessions that could not connect or start. */
  failedToStart: number;
  connectMs: number;
  closeMs: number;
  windowMs: number;
}

const CONNECT_CONCURRENCY = 50;
const TAIL_MS = 400;
const ANSWER_GRACE_MS = 300;

export async function runLoadStep(options: LoadStepOptions, hooks: WindowHooks): Promise<LoadStepResult> {
  const random = mulberry32(options.seed);
  const recorder = new LoadRecorder();
  const sessions = Array.from(
    { length: options.sessions },
    () => new LoadSession(Math.floor(random() * CYCLE_FRAMES), recorder),
  );

  const connectStart = performance.now();
  const started = await openAll(sessions, options.target, recorder);
  const connectMs = performance.now() - connectStart;

  const t0 = performance.now() + 20;
  for (const session of started) session.due = t0 + random() * FRAME_MS;
  started.sort((a, b) => a.due - b.due);
  const stopAt = t0 + options.warmupMs + options.windowMs + TAIL_MS;
  let windowFrom = 0;
  let windowTo = 0;
  const edges = (async () => {
    await sleep(Math.max(0, t0 + options.warmupMs - performance.now()));
    // The hooks read the server's counters before their first await: the edges match the count.
    windowFrom = performance.now();
    recorder.open(windowFrom, Number.POSITIVE_INFINITY);
    await hooks.opened();
    await sleep(Math.max(0, windowFrom + options.windowMs - performance.now()));
    windowTo = performance.now();
    recorder.open(windowFrom, windowTo);
    await hooks.closed();
  })();
  await stream(started, stopAt);
  await edges;
  await sleep(ANSWER_GRACE_MS);
  for (const session of started) session.settle();

  const closeStart = performance.now();
  await Promise.all(started.map((session) => session.close()));
  return {
    observation: recorder.summary(),
    failedToStart: sessions.length - started.length,
    connectMs: Math.round(connectMs),
    closeMs: Math.round(performance.now() - closeStart),
    windowMs: Math.round(windowTo - windowFrom),
  };
}

async function openAll(sessions: LoadSession[], target: SocketTarget, recorder: LoadRecorder): Promise<LoadSession[]> {
  const started: LoadSession[] = [];
  let next = 0;
  const worker = async () => {
    while (next < sessions.length) {
      const session = sessions[next++];
      try {
        await session.open(target);
        started.push(session);
      } catch (error) {
        recorder.error(`start: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECT_CONCURRENCY, sessions.length) }, worker));
  return started;
}

/**
 * One timer walks the sessions in phase order: every session advances by the same 80 ms, so the
 * order never changes and a rotating index finds the next one due. A late tick sends what is due
 * (at most one frame per session per pass), and the lateness is recorded.
 */
function stream(sessions: LoadSession[], stopAt: number): Promise<void> {
  return new Promise((resolve) => {
    if (sessions.length === 0) return void setTimeout(resolve, Math.max(0, stopAt - performance.now()));
    let at = 0;
    const tick = () => {
      const now = performance.now();
      if (now >= stopAt) return resolve();
      for (let sent = 0; sent < sessions.length && sessions[at].due <= now; sent++) {
        const session = sessions[at];
        session.sendFrame(now - session.due);
        session.due += FRAME_MS;
        at = at + 1 === sessions.length ? 0 : at + 1;
      }
      setTimeout(tick, Math.max(0, sessions[at].due - performance.now()));
    };
    tick();
  });
}

/** A small seeded generator: the same seed gives the same phases and leads on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
