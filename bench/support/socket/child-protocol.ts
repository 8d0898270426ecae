/**
 * What the socket benchmark's server children (the service and the bare relay) say to the
 * parent over IPC. CPU and RSS are read from /proc by the parent; the children report what
 * only they can see: their heap and event loop.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';

export type ServerKind = 'service' | 'relay';

export interface ServerReady {
  type: 'ready';
  port: number;
  path: string;
  /** The Authorization header the sockets send (the relay ignores it). */
  authorization: string;
}

/**
 * `reset` starts a new measurement window; `read` reports on the window so far. The profile
 * actions sample the child's CPU (V8's profiler, as --cpu-prof) over exactly one window and
 * write a .cpuprofile to `path`.
 */
export interface StatsRequest {
  type: 'stats';
  id: number;
  action: 'reset' | 'read' | 'profile_start' | 'profile_stop';
  path?: string;
}

export interface ServerStats {
  type: 'stats';
  id: number;
  /**
   * Heap plus external memory (Buffers), after a full GC when the child runs with --expose-gc
   * (on `read`): what the open sessions hold, without the garbage RSS also counts.
   */
  retainedMb: number;
  heapUsedMb: number;
  /** p99 of the event loop's delay over the window, ms: how long a ready frame waits its turn. */
  loopDelayP99Ms: number;
  /** p50 and max of the same, ms. */
  loopDelayP50Ms: number;
  loopDelayMaxMs: number;
  /**
   * Timers (setTimeout/setInterval) alive in the child, sampled every 100 ms over the window: mean
   * and max. A timer per session shows up here as a figure that grows with the sessions.
   */
  timersMean: number;
  timersMax: number;
  /** Timer callbacks run per second over the window (setTimeout and setInterval of globalThis). */
  timerCallbacksPerSecond: number;
  /** Share of the window the event loop was busy, 0..1. */
  loopUtilization: number;
  /** Garbage collections over the window (perf_hooks 'gc' entries; the stats read's own GC excluded). */
  gc: GcStats;
}

export interface GcStats {
  /** Collections of every kind, and their pauses summed and the longest, ms. */
  count: number;
  totalPauseMs: number;
  maxPauseMs: number;
  /** Scavenges (young generation). */
  minorCount: number;
  minorTotalMs: number;
  minorMaxMs: number;
  /** Mark-compacts (and their incremental marking steps). */
  majorCount: number;
  majorTotalMs: number;
  majorMaxMs: number;
}

function emptyGc(): GcStats {
  return {
    count: 0,
    totalPauseMs: 0,
    maxPauseMs: 0,
    minorCount: 0,
    minorTotalMs: 0,
    minorMaxMs: 0,
    majorCount: 0,
    majorTotalMs: 0,
    majorMaxMs: 0,
  };
}

/**
 * Counts the timer callbacks that run (globalThis.setTimeout and setInterval, wrapped): call it
 * before the server is built, so that what the server creates is counted. Timers taken from
 * node:timers or node:timers/promises directly are not counted.
 */
function countTimerCallbacks(): () => number {
  let fired = 0;
  const counted =
    <A extends unknown[]>(callback: (...args: A) => void) =>
    (...args: A) => {
      fired++;
      callback(...args);
    };
  const { setTimeout: originalTimeout, setInterval: originalInterval } = globalThis;
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
    originalTimeout(counted(callback), ms, ...args)) as typeof setTimeout;
  globalThis.setInterval = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
    originalInterval(counted(callback), ms, ...args)) as typeof setInterval;
  return () => fired;
}

let timerCallbacks: (() => number) | null = null;

/** Call first thing in a child, before the server is built (see countTimerCallbacks). */
export function watchTimers(): void {
  timerCallbacks ??= countTimerCallbacks();
}

function liveTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

/** Installs the child's side: answers stats requests on the IPC channel. */
export function answerStats(): void {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let since = performance.eventLoopUtilization();
  let windowStart = performance.now();
  let firedAtStart = timerCallbacks?.() ?? 0;
  let timerSamples: number[] = [];
  // A sampler of its own: one timer more in every figure, for both servers alike.
  setInterval(() => timerSamples.push(liveTimers()), 100).unref();
  let gcStats = emptyGc();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      const ms = entry.duration;
      gcStats.count++;
      gcStats.totalPauseMs += ms;
      gcStats.maxPauseMs = Math.max(gcStats.maxPauseMs, ms);
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        gcStats.minorCount++;
        gcStats.minorTotalMs += ms;
        gcStats.minorMaxMs = Math.max(gcStats.minorMaxMs, ms);
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR || kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) {
        gcStats.majorCount++;
        gcStats.majorTotalMs += ms;
        gcStats.majorMaxMs = Math.max(gcStats.majorMaxMs, ms);
      }
    }
  }).observe({ entryTypes: ['gc'] });
  let inspector: Session | null = null;
  process.on('message', async (message: StatsRequest) => {
    if (message?.type !== 'stats') return;
    if (message.action === 'reset') {
      delay.reset();
      since = performance.eventLoopUtilization();
      windowStart = performance.now();
      firedAtStart = timerCallbacks?.() ?? 0;
      timerSamples = [];
      gcStats = emptyGc();
    } else if (message.action === 'profile_start') {
      inspector ??= new Session();
      inspector.connect();
      await post(inspector, 'Profiler.enable');
      await post(inspector, 'Profiler.start');
      // Allocation sampling, garbage included: where GC pressure comes from.
      await post(inspector, 'HeapProfiler.startSampling', {
        samplingInterval: 64 * 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    } else if (message.action === 'profile_stop' && inspector !== null) {
      const { profile } = (await post(inspector, 'Profiler.stop')) as { profile: unknown };
      writeFileSync(message.path!, JSON.stringify(profile));
      const heap = (await post(inspector, 'HeapProfiler.stopSampling')) as { profile: unknown };
      writeFileSync(message.path!.replace(/\.cpuprofile$/, '.heapprofile'), JSON.stringify(heap.profile));
      inspector.disconnect();
    }
    // The loop figures are taken before the GC, which would show up in them.
    const loopDelayP99Ms = delay.count > 0 ? delay.percentile(99) / 1e6 : 0;
    const loopDelayP50Ms = delay.count > 0 ? delay.percentile(50) / 1e6 : 0;
    const loopDelayMaxMs = delay.count > 0 ? delay.max / 1e6 : 0;
    const samples = timerSamples.length > 0 ? timerSamples : [liveTimers()];
    const seconds = Math.max(1e-3, (performance.now() - windowStart) / 1000);
    const timerCallbacksPerSecond = ((timerCallbacks?.() ?? 0) - firedAtStart) / seconds;
    const loopUtilization = performance.eventLoopUtilization(since).utilization;
    const gcWindow = gcStats;
    gcStats = emptyGc(); // the forced GC below is not the window's
    const gc = (globalThis as { gc?: () => void }).gc;
    // Twice: Buffers are freed by the weak callbacks that the first collection schedules.
    if (message.action === 'read' && gc) {
      gc();
      gc();
    }
    const memory = process.memoryUsage();
    const reply: ServerStats = {
      type: 'stats',
      id: message.id,
      retainedMb: (memory.heapUsed + memory.external) / 2 ** 20,
      heapUsedMb: memory.heapUsed / 2 ** 20,
      loopDelayP99Ms,
      loopDelayP50Ms,
      loopDelayMaxMs,
      timersMean: samples.reduce((a, b) => a + b, 0) / samples.length,
      timersMax: Math.max(...samples),
      timerCallbacksPerSecond,
      loopUtilization,
      gc: gcWindow,
    };
    process.send!(reply);
  });
}

function post(session: Session, method: string, params: object = {}): Promise<unknown> {
  return new Promise((resolve, reject) =>
    session.post(method, params, (error: Error | null, result?: unknown) => (error ? reject(error) : resolve(result))),
  );
}
