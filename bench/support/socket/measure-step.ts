/**
 * One step against one server: the load step, plus what it cost the server over exactly the
 * measurement window (CPU from /proc, RSS sampled, heap and event loop from the child), what
 * it cost PostgreSQL (the service's backends), the load generator's own health, and how busy
 * the rest of the shared machine was meanwhile.
 */
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { round } from '../report';
import { cpuSeconds, machineCpuSeconds, rssMb } from '../proc-usage';
import type { Distribution } from '../stats';
import type { ServerKind, ServerStats } from './child-protocol';
import { backendCpu, backendCpuBetween, type BackendCpu } from './database-cpu';
import { runLoadStep } from './load-step';
import type { Probe } from './script';
import type { ServerProcess } from './server-process';

export interface MeasureOptions {
  sessions: number;
  warmupMs: number;
  windowMs: number;
  binaryOutput: boolean;
  /** The idle server after warm-up: per-session memory is measured above it. */
  baseline: { rssMb: number; retainedMb: number };
  /** The service's database, whose backends' CPU is counted; null for the relay. */
  database: string | null;
  p99LimitMs: number;
  /** Where to write a CPU profile of the server over the window; null for none. */
  profilePath: string | null;
}

export interface StepResult {
  server: ServerKind;
  sessions: number;
  passed: boolean;
  /** Probe frame sent → its event received, all probes, ms. */
  latencyMs: Distribution;
  byProbe: Record<Probe, Distribution>;
  /** Later output frames of each reply against the real-time schedule, ms. */
  outputLatenessMs: Distribution;
  framesPerSecond: number;
  outputFramesPerSecond: number;
  cpu: { coresUsed: number; perFrameUs: number; perSessionPercent: number };
  /**
   * `perSessionKb`: heap + Buffers still held after a full GC, above the idle server, per session
   * (what a session costs). `rssPerSessionKb`: mean RSS growth per session, which also counts the
   * garbage and heap headroom that a busy process carries.
   */
  memory: { rssMb: number; perSessionKb: number; rssPerSessionKb: number; retainedMb: number };
  database: { coresUsed: number; perFrameUs: number } | null;
  /**
   * The server's event loop over the window: delay percentiles (how long a ready callback waited
   * its turn), busy share, the timers alive (mean, max) and timer callbacks run per second.
   */
  serverEventLoop: {
    delayP50Ms: number;
    delayP99Ms: number;
    delayMaxMs: number;
    utilization: number;
    timersMean: number;
    timersMax: number;
    timerCallbacksPerSecond: number;
  };
  /** The server's garbage collections over the window: count per second, pauses (total share of the window, max). */
  gc: {
    perSecond: number;
    pauseTotalMs: number;
    pauseMaxMs: number;
    minorPerSecond: number;
    minorMaxMs: number;
    majorCount: number;
    majorMaxMs: number;
    /** Share of the window spent in GC pauses, 0..1. */
    pauseShare: number;
  };
  loadGenerator: { coresUsed: number; sendLatenessP99Ms: number; loopDelayP99Ms: number };
  /** CPU the rest of the machine (other people's work) used during the window, in cores. */
  otherCores: number;
  loadAverage: number;
  problems: {
    failedToStart: number;
    missing: number;
    unexpected: number;
    unexpectedKinds: Record<string, number>;
    errors: number;
    warnings: number;
    interruptedResponses: number;
    droppedSockets: number;
    firstError: string | null;
  };
  connectMs: number;
  closeMs: number;
}

export async function measureStep(server: ServerProcess, options: MeasureOptions, seed: number): Promise<StepResult> {
  let cpuAtOpen = 0;
  let cpuAtClose = 0;
  let machineAtOpen = machineCpuSeconds();
  let machineAtClose = machineAtOpen;
  let ownAtOpen = process.cpuUsage();
  let ownUsed = { user: 0, system: 0 };
  let dbAtOpen: BackendCpu = new Map();
  let dbSeconds = 0;
  let stats: ServerStats | null = null;
  const rss: number[] = [];
  let rssTimer: NodeJS.Timeout | undefined;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const loadAtStart = loadavg()[0];

  const step = await runLoadStep(
    {
      sessions: options.sessions,
      target: { url: server.url, authorization: server.ready.authorization, binaryOutput: options.binaryOutput },
      warmupMs: options.warmupMs,
      windowMs: options.windowMs,
      seed,
    },
    {
      opened: async () => {
        cpuAtOpen = cpuSeconds(server.pid) ?? 0;
        machineAtOpen = machineCpuSeconds();
        ownAtOpen = process.cpuUsage();
        loop.enable();
        rssTimer = setInterval(() => rss.push(rssMb(server.pid) ?? 0), 1000);
        await server.stats('reset');
        if (options.profilePath !== null) await server.stats('profile_start');
        if (options.database !== null) dbAtOpen = await backendCpu(options.database);
      },
      closed: async () => {
        cpuAtClose = cpuSeconds(server.pid) ?? 0;
        machineAtClose = machineCpuSeconds();
        ownUsed = process.cpuUsage(ownAtOpen);
        loop.disable();
        clearInterval(rssTimer);
        rss.push(rssMb(server.pid) ?? 0);
        if (options.profilePath !== null) await server.stats('profile_stop', options.profilePath);
        stats = await server.stats('read');
        if (options.database !== null) dbSeconds = backendCpuBetween(dbAtOpen, await backendCpu(options.database));
      },
    },
  );

  const seconds = step.windowMs / 1000;
  const { observation: o } = step;
  const frames = Math.max(1, o.framesSent);
  const serverCpu = cpuAtClose - cpuAtOpen;
  const ownCpu = (ownUsed.user + ownUsed.system) / 1e6;
  const machineBusy =
    ((machineAtClose.busy - machineAtOpen.busy) / Math.max(1e-9, machineAtClose.total - machineAtOpen.total)) *
    cpus().length *
    seconds;
  const rssMean = rss.reduce((a, b) => a + b, 0) / Math.max(1, rss.length);
  const probes = o.latencyMs.count + o.missing;
  const problems = {
    failedToStart: step.failedToStart,
    missing: o.missing,
    unexpected: o.unexpected,
    unexpectedKinds: o.unexpectedKinds,
    errors: o.errors,
    warnings: o.warnings,
    interruptedResponses: o.interruptedResponses,
    droppedSockets: o.droppedSockets,
    firstError: o.firstError,
  };
  const healthy =
    step.failedToStart === 0 && o.droppedSockets === 0 && o.errors === 0 && o.missing <= Math.max(1, probes * 0.001);
  const finalStats = stats as ServerStats | null;
  return {
    server: server.kind,
    sessions: options.sessions,
    passed: healthy && o.latencyMs.count > 0 && o.latencyMs.p99 < options.p99LimitMs,
    latencyMs: o.latencyMs,
    byProbe: o.byProbe,
    outputLatenessMs: o.outputLatenessMs,
    framesPerSecond: Math.round(o.framesSent / seconds),
    outputFramesPerSecond: Math.round(o.outputFrames / seconds),
    cpu: {
      coresUsed: round(serverCpu / seconds, 3),
      perFrameUs: round((serverCpu * 1e6) / frames, 1),
      perSessionPercent: round((100 * serverCpu) / seconds / options.sessions, 3),
    },
    memory: {
      rssMb: round(rssMean, 1),
      perSessionKb: round((((finalStats?.retainedMb ?? 0) - options.baseline.retainedMb) * 1024) / options.sessions, 1),
      rssPerSessionKb: round(((rssMean - options.baseline.rssMb) * 1024) / options.sessions, 1),
      retainedMb: round(finalStats?.retainedMb ?? 0, 1),
    },
    database:
      options.database === null
        ? null
        : { coresUsed: round(dbSeconds / seconds, 3), perFrameUs: round((dbSeconds * 1e6) / frames, 1) },
    serverEventLoop: {
      delayP50Ms: round(finalStats?.loopDelayP50Ms ?? 0, 1),
      delayP99Ms: round(finalStats?.loopDelayP99Ms ?? 0, 1),
      delayMaxMs: round(finalStats?.loopDelayMaxMs ?? 0, 1),
      utilization: round(finalStats?.loopUtilization ?? 0, 3),
      timersMean: round(finalStats?.timersMean ?? 0, 0),
      timersMax: finalStats?.timersMax ?? 0,
      timerCallbacksPerSecond: round(finalStats?.timerCallbacksPerSecond ?? 0, 0),
    },
    gc: {
      perSecond: round((finalStats?.gc?.count ?? 0) / seconds, 1),
      pauseTotalMs: round(finalStats?.gc?.totalPauseMs ?? 0, 1),
      pauseMaxMs: round(finalStats?.gc?.maxPauseMs ?? 0, 1),
      minorPerSecond: round((finalStats?.gc?.minorCount ?? 0) / seconds, 1),
      minorMaxMs: round(finalStats?.gc?.minorMaxMs ?? 0, 1),
      majorCount: finalStats?.gc?.majorCount ?? 0,
      majorMaxMs: round(finalStats?.gc?.majorMaxMs ?? 0, 1),
      pauseShare: round((finalStats?.gc?.totalPauseMs ?? 0) / 1000 / seconds, 3),
    },
    loadGenerator: {
      coresUsed: round(ownCpu / seconds, 3),
      sendLatenessP99Ms: o.sendLatenessMs.p99,
      loopDelayP99Ms: round(loop.count > 0 ? loop.percentile(99) / 1e6 : 0, 1),
    },
    otherCores: round(Math.max(0, machineBusy - serverCpu - ownCpu - dbSeconds) / seconds, 2),
    loadAverage: round(loadAtStart, 2),
    problems,
    connectMs: step.connectMs,
    closeMs: step.closeMs,
  };
}

/** Used by callers that print as they go. */
export function stepLine(r: StepResult): string {
  const db = r.database ? `, db ${r.database.coresUsed} cores` : '';
  const trouble = Object.entries(r.problems)
    .filter(([, value]) => typeof value === 'number' && value > 0)
    .map(([key, value]) =>
      key === 'unexpected' ? `unexpected ${JSON.stringify(r.problems.unexpectedKinds)}` : `${key} ${value}`,
    )
    .join(', ');
  return (
    `${r.server.padEnd(7)} ${String(r.sessions).padStart(5)}: p50 ${r.latencyMs.p50} / p99 ${r.latencyMs.p99} ms ` +
    `(n=${r.latencyMs.count}), output late p99 ${r.outputLatenessMs.p99} ms, ` +
    `CPU ${r.cpu.coresUsed} cores = ${r.cpu.perFrameUs} µs/frame, ` +
    `loop delay p50/p99/max ${r.serverEventLoop.delayP50Ms}/${r.serverEventLoop.delayP99Ms}/${r.serverEventLoop.delayMaxMs} ms, ` +
    `${r.serverEventLoop.timersMean} timers, ${r.serverEventLoop.timerCallbacksPerSecond} timer callbacks/s, GC ${r.gc.perSecond}/s pauses max ${r.gc.pauseMaxMs} ms (${r.gc.majorCount} major, max ${r.gc.majorMaxMs}) ${Math.round(r.gc.pauseShare * 1000) / 10}% of the window, RSS ${r.memory.rssMb} MB, ${r.memory.perSessionKb} KB/session retained${db}; ` +
    `loadgen ${r.loadGenerator.coresUsed} cores, send late p99 ${r.loadGenerator.sendLatenessP99Ms} ms; ` +
    `others ${r.otherCores} cores, load ${r.loadAverage}` +
    `${trouble ? `; ${trouble}${r.problems.firstError ? ` (${r.problems.firstError})` : ''}` : ''} ${r.passed ? 'ok' : 'FAIL'}`
  );
}
