/**
 * What the socket benchmark's server children (the service and the bare relay) say to the
 * parent over IPC. CPU and RSS are read from /proc by the parent; the children report what
 * only they can see: their heap and event loop.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

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
  /** Share of the window the event loop was busy, 0..1. */
  loopUtilization: number;
}

/** Installs the child's side: answers stats requests on the IPC channel. */
export function answerStats(): void {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let since = performance.eventLoopUtilization();
  let inspector: Session | null = null;
  process.on('message', async (message: StatsRequest) => {
    if (message?.type !== 'stats') return;
    if (message.action === 'reset') {
      delay.reset();
      since = performance.eventLoopUtilization();
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
    const loopUtilization = performance.eventLoopUtilization(since).utilization;
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
      loopUtilization,
    };
    process.send!(reply);
  });
}

function post(session: Session, method: string, params: object = {}): Promise<unknown> {
  return new Promise((resolve, reject) =>
    session.post(method, params, (error: Error | null, result?: unknown) => (error ? reject(error) : resolve(result))),
  );
}
