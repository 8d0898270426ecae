/**
 * Socket benchmark: N concurrent live sessions through the real service, side by side with a
 * bare `ws` relay carrying the same traffic, for growing N.
 *
 *   npm run build && node dist/bench/socket.bench.js [--steps 100,250,500] [--window 10] [--warmup 2]
 *                                                     [--runs 3] [--binary] [--profile] [--quick]
 *
 * The curve runs 100, 250, 500, 1,000 and 1,500 sessions (--quick: 100, 250 and 500 with 4 s
 * windows and one run, about a minute). Each step runs three times (--runs) in one invocation, the
 * service and the relay alternating which goes first, and every run is recorded: one run is one
 * sample of a shared machine. Targets at 1,000 sessions, in every run: p99 under 20 ms above the
 * relay's, output lateness p99 under 30 ms, CPU per frame ≤ 1.5× the relay's; and every larger
 * step passes in each run where the relay passes.
 *
 * The service (createApp, scripted engine, metering to a scratch PostgreSQL database) and the
 * relay each run in their own child process; this process is the load generator. Every session
 * streams 12.5 frames/s of pcm16 (a 480 ms tone, then silence) and gets a 960 ms reply paced
 * back in real time after each turn (support/socket/script.ts).
 *
 * Event loop: the service's (and the relay's) event-loop delay p50/p99/max over the window
 * (perf_hooks.monitorEventLoopDelay), its busy share, the timers alive and the timer callbacks
 * run per second: what shows when per-session work runs, not how much of it there is.
 *
 * Latency: three frames per turn cause an event at once, in the same call chain that handles
 * the frame (the first loud frame → speech_started, the frame completing 400 ms of speech → a
 * transcript word, the frame completing 500 ms of silence → the reply's first audio delta). The
 * time from sending such a frame to receiving its event is what a frame picks up crossing the
 * server: socket read, unmasking, parsing, decoding, the session core and the engine, rendering
 * and the write back. The relay's figure for the same path is the floor that ws, the loopback
 * and this load generator set. Later reply frames are timed against the pacer's schedule.
 *
 * CPU per frame: server CPU (utime+stime from /proc) over the window / input frames sent in it;
 * the PostgreSQL backends serving the service's database are measured apart. Memory per session:
 * heap + Buffers held after a full GC at the window's end, above the idle server, / N (mean RSS
 * growth is reported too). A step passes with p99 < 50 ms and no failed or dropped sessions,
 * errors or lost events; every step asked for is run. The machine is shared:
 * each step records the CPU other work used meanwhile, and a step that failed while others used
 * more than half a core is repeated once in a quieter moment (both attempts are kept).
 *
 * --profile samples both servers' CPU (V8's profiler) over each step's window and summarises
 * where the time went at 1,000 sessions (or the largest step below); profiling costs a few per
 * cent, so its latencies are not the reported ones. BENCH_SERVER_NODE_ARGS (e.g. --trace-gc) goes
 * to both servers' node. BENCH_DATABASE_URL overrides the local PostgreSQL server.
 * Results: bench/results/socket.json.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { summarizeProfile, type ProfileSummary } from './support/cpu-profile';
import { rssMb } from './support/proc-usage';
import { portablePath, round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { waitForQuiet } from './support/socket/quiet-machine';
import { measureStep, stepLine, type MeasureOptions, type StepResult } from './support/socket/measure-step';
import { ServerProcess } from './support/socket/server-process';

const TARGET_SESSIONS = 1000;
/** A step passes (the curve goes on) while its p99 stays under this. */
const P99_LIMIT_MS = 50;
/** Issue 17's targets at TARGET_SESSIONS: p99 over the relay's, and CPU per frame over the relay's. */
const ADDED_P99_LIMIT_MS = 20;
const CPU_RATIO_LIMIT = 1.5;
/** Issue 26: later output frames against their schedule, p99, at TARGET_SESSIONS. */
const OUTPUT_LATENESS_P99_LIMIT_MS = 30;
/** The curve: where the knee is, beside the relay at every point. */
const DEFAULT_STEPS = [100, 250, 500, 1000, 1500];
const QUICK_STEPS = [100, 250, 500];
/** Other work on the machine above this many cores during a failed step earns it a second try. */
const CONTENDED_CORES = 0.5;
const MAX_RETRIES = 2;
const QUIET_WAIT_MS = 15_000;

/** One run of one N, both servers. */
interface StepPair {
  sessions: number;
  /** 1, 2, 3…: each step runs `runs` times. */
  run: number;
  /** Which server was measured first in this run (they alternate from run to run). */
  first: 'service' | 'relay';
  service: StepResult;
  relay: StepResult;
  /** Service CPU per frame / relay CPU per frame. */
  cpuRatio: number;
  /** The same with the service's PostgreSQL backends' CPU added to the service's. */
  cpuRatioWithDatabase: number;
  /** The first attempt, when it failed while other work kept the cores busy and the step was repeated. */
  contendedAttempt?: StepPair;
}

interface Options {
  steps: number[];
  windowMs: number;
  warmupMs: number;
  runs: number;
  binaryOutput: boolean;
  profile: boolean;
}

function parseOptions(argv: string[]): Options {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  const steps = value('steps')
    ?.split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  return {
    steps: steps?.length ? steps : quick ? QUICK_STEPS : DEFAULT_STEPS,
    windowMs: Number(value('window') ?? (quick ? 4 : 10)) * 1000,
    warmupMs: Number(value('warmup') ?? (quick ? 1 : 2)) * 1000,
    runs: Math.max(1, Number(value('runs') ?? (quick ? 1 : 3))),
    binaryOutput: argv.includes('--binary'),
    profile: argv.includes('--profile'),
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = Date.now();
  const loadAtStart = loadavg().map((v) => round(v, 2));
  if (loadAtStart[0] > cpus().length) {
    process.stdout.write(
      `  note: load average ${loadAtStart[0]} on ${cpus().length} cores at start; figures will be pessimistic\n`,
    );
  }
  const database = await createScratchDatabase('socket');
  const workDir = mkdtempSync(join(tmpdir(), 'continuum-socket-bench-'));
  const servers: ServerProcess[] = [];
  const dropDatabase = () => void database.drop().finally(() => process.exit(130));
  process.once('SIGINT', dropDatabase);
  try {
    const logFile = join(workDir, 'servers.log');
    // Diagnostics such as --trace-gc (their output lands in the servers' log).
    const execArgv = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const service = await ServerProcess.start('service', { args: [database.url], logFile, execArgv });
    servers.push(service);
    const relay = await ServerProcess.start('relay', { args: [], logFile, execArgv });
    servers.push(relay);
    process.stdout.write(`socket bench: service pid ${service.pid}, relay pid ${relay.pid}; logs in ${logFile}\n`);

    // JIT, pools and caches warm on a small step that is not recorded; the idle RSS after it is the baseline.
    const base = {
      warmupMs: 1000,
      windowMs: 2000,
      binaryOutput: options.binaryOutput,
      p99LimitMs: P99_LIMIT_MS,
      profilePath: null,
    };
    const none = { rssMb: 0, retainedMb: 0 };
    await measureStep(service, { ...base, sessions: 20, baseline: none, database: database.name }, 1);
    await measureStep(relay, { ...base, sessions: 20, baseline: none, database: null }, 1);
    await sleep(500);
    const idle = async (server: ServerProcess) => ({
      rssMb: rssMb(server.pid) ?? 0,
      retainedMb: (await server.stats('read')).retainedMb,
    });
    const baseline = { service: await idle(service), relay: await idle(relay) };

    const steps: StepPair[] = [];
    let retries = 0;
    for (const sessions of options.steps) {
      const measure = (server: ServerProcess): MeasureOptions => ({
        sessions,
        warmupMs: options.warmupMs,
        windowMs: options.windowMs,
        binaryOutput: options.binaryOutput,
        baseline: baseline[server.kind],
        database: server.kind === 'service' ? database.name : null,
        p99LimitMs: P99_LIMIT_MS,
        profilePath: options.profile ? profileFile(workDir, server.kind, sessions) : null,
      });
      for (let run = 1; run <= options.runs; run++) {
        const first = run % 2 === 1 ? 'service' : 'relay';
        process.stdout.write(
          `  ${sessions} sessions, run ${run}/${options.runs} (${first} first), load ${loadavg()[0]}\n`,
        );
        let pair = await measurePair(service, relay, measure, run, first);
        // A failure while other work used the cores says little about the service: one more try
        // in a quieter moment, and both attempts are kept.
        if (!pair.service.passed && pair.service.otherCores > CONTENDED_CORES && retries < MAX_RETRIES) {
          retries++;
          const busy = await waitForQuiet(CONTENDED_CORES, QUIET_WAIT_MS);
          process.stdout.write(
            `  others used ${pair.service.otherCores} cores during that step; again (machine now at ${round(busy, 2)} cores)\n`,
          );
          const contended = pair;
          pair = { ...(await measurePair(service, relay, measure, run, first)), contendedAttempt: contended };
        }
        steps.push(pair);
      }
    }

    await Promise.all(servers.map((server) => server.stop()));
    const profile = options.profile
      ? profiles(
          workDir,
          steps.map((s) => s.sessions),
        )
      : null;
    const report = summarize(steps, options, profile, Date.now() - started, loadAtStart);
    const path = writeReport(report);
    process.stdout.write(`${report.headline}\n→ ${path}\n`);
    if (profile) printProfile(profile, workDir);
    // The servers' log and the profiles are kept only for diagnostics (or when the run failed).
    if (!options.profile && execArgv.length === 0) rmSync(workDir, { recursive: true, force: true });
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    process.off('SIGINT', dropDatabase);
    await database.drop();
  }
}

/** One N on both servers, the same seed: both see the same phases and script positions. */
async function measurePair(
  service: ServerProcess,
  relay: ServerProcess,
  measure: (server: ServerProcess) => MeasureOptions,
  run: number,
  first: 'service' | 'relay',
): Promise<StepPair> {
  const one = async (server: ServerProcess) => {
    const step = await measureStep(server, measure(server), measure(server).sessions);
    process.stdout.write(`  ${stepLine(step)}\n`);
    return step;
  };
  let serviceStep: StepResult;
  let relayStep: StepResult;
  if (first === 'service') {
    serviceStep = await one(service);
    relayStep = await one(relay);
  } else {
    relayStep = await one(relay);
    serviceStep = await one(service);
  }
  const relayUs = Math.max(0.001, relayStep.cpu.perFrameUs);
  const cpuRatio = round(serviceStep.cpu.perFrameUs / relayUs, 2);
  const cpuRatioWithDatabase = round(
    (serviceStep.cpu.perFrameUs + (serviceStep.database?.perFrameUs ?? 0)) / relayUs,
    2,
  );
  process.stdout.write(
    `  ${serviceStep.sessions} sessions: CPU per frame service/relay ${cpuRatio}x (${cpuRatioWithDatabase}x with the database)\n`,
  );
  return {
    sessions: serviceStep.sessions,
    run,
    first,
    service: serviceStep,
    relay: relayStep,
    cpuRatio,
    cpuRatioWithDatabase,
  };
}

/** Per N, over its runs: the worst of each figure, and whether every run met what it should. */
interface StepSummary {
  sessions: number;
  runs: number;
  servicePassedRuns: number;
  relayPassedRuns: number;
  /** Every run in which the relay passed, the service passed too. */
  passedWhereRelayPassed: boolean;
  p99Ms: number[];
  relayP99Ms: number[];
  addedP99Ms: number[];
  outputLatenessP99Ms: number[];
  relayOutputLatenessP99Ms: number[];
  cpuPerFrameRatio: number[];
  serviceLoopDelayP99Ms: number[];
  serviceLoopDelayMaxMs: number[];
  relayLoopDelayP99Ms: number[];
  /** The service's GC per run: collections per second, longest pause, share of the window in pauses. */
  serviceGcPerSecond: number[];
  serviceGcPauseMaxMs: number[];
  serviceGcPauseShare: number[];
}

function byStep(steps: StepPair[]): StepSummary[] {
  const sizes = [...new Set(steps.map((s) => s.sessions))];
  return sizes.map((sessions) => {
    const runs = steps.filter((s) => s.sessions === sessions);
    return {
      sessions,
      runs: runs.length,
      servicePassedRuns: runs.filter((r) => r.service.passed).length,
      relayPassedRuns: runs.filter((r) => r.relay.passed).length,
      passedWhereRelayPassed: runs.every((r) => r.service.passed || !r.relay.passed),
      p99Ms: runs.map((r) => r.service.latencyMs.p99),
      relayP99Ms: runs.map((r) => r.relay.latencyMs.p99),
      addedP99Ms: runs.map((r) => round(r.service.latencyMs.p99 - r.relay.latencyMs.p99, 1)),
      outputLatenessP99Ms: runs.map((r) => r.service.outputLatenessMs.p99),
      relayOutputLatenessP99Ms: runs.map((r) => r.relay.outputLatenessMs.p99),
      cpuPerFrameRatio: runs.map((r) => r.cpuRatio),
      serviceLoopDelayP99Ms: runs.map((r) => r.service.serverEventLoop.delayP99Ms),
      serviceLoopDelayMaxMs: runs.map((r) => r.service.serverEventLoop.delayMaxMs),
      relayLoopDelayP99Ms: runs.map((r) => r.relay.serverEventLoop.delayP99Ms),
      serviceGcPerSecond: runs.map((r) => r.service.gc.perSecond),
      serviceGcPauseMaxMs: runs.map((r) => r.service.gc.pauseMaxMs),
      serviceGcPauseShare: runs.map((r) => r.service.gc.pauseShare),
    };
  });
}

function summarize(
  steps: StepPair[],
  options: Options,
  profile: StepProfiles | null,
  elapsedMs: number,
  loadAtStart: number[],
) {
  const summaries = byStep(steps);
  // The largest N whose every run passed.
  const maxSessions = Math.max(
    0,
    ...summaries.filter((s) => s.servicePassedRuns === s.runs && s.runs > 0).map((s) => s.sessions),
  );
  const targetSessions = summaries.some((s) => s.sessions === TARGET_SESSIONS)
    ? TARGET_SESSIONS
    : Math.max(
        ...summaries.filter((s) => s.sessions <= TARGET_SESSIONS).map((s) => s.sessions),
        steps[0]?.sessions ?? 0,
      );
  // The worst run at the target decides: the one with the most added p99.
  const atTarget = steps
    .filter((s) => s.sessions === targetSessions)
    .sort(
      (a, b) => b.service.latencyMs.p99 - b.relay.latencyMs.p99 - (a.service.latencyMs.p99 - a.relay.latencyMs.p99),
    )[0];
  const targetRuns = steps.filter((s) => s.sessions === targetSessions);
  const ratio = Math.max(...targetRuns.map((s) => s.cpuRatio), 0) || Number.POSITIVE_INFINITY;
  const at = atTarget?.service;
  const addedP99 = at ? round(at.latencyMs.p99 - atTarget.relay.latencyMs.p99, 1) : Number.POSITIVE_INFINITY;
  const worstLateness = Math.max(...targetRuns.map((s) => s.service.outputLatenessMs.p99));
  const larger = summaries.filter((s) => s.sessions > TARGET_SESSIONS);
  const met =
    targetSessions === TARGET_SESSIONS &&
    targetRuns.every((s) => s.service.passed) &&
    ratio <= CPU_RATIO_LIMIT &&
    addedP99 < ADDED_P99_LIMIT_MS &&
    worstLateness < OUTPUT_LATENESS_P99_LIMIT_MS &&
    larger.every((s) => s.passedWhereRelayPassed);
  const runsOf = (s: StepSummary) => s.p99Ms.map((p99, i) => `${p99}/${s.relayP99Ms[i]}`).join(' ');
  const headline = at
    ? `socket: max ${maxSessions} sessions at p99 < ${P99_LIMIT_MS} ms in every run; at ${atTarget.sessions} (worst of ${targetRuns.length} runs): ` +
      `p50 ${at.latencyMs.p50} / p99 ${at.latencyMs.p99} ms (relay ${atTarget.relay.latencyMs.p50} / ${atTarget.relay.latencyMs.p99}), ` +
      `output late p99 ≤ ${worstLateness} ms, CPU/frame ≤ ${ratio}x relay, ` +
      `${at.cpu.perSessionPercent}% core and ${at.memory.perSessionKb} KB per session; curve p99 service/relay per run ` +
      summaries.map((s) => `${s.sessions}: ${runsOf(s)}`).join(', ') +
      ' ms'
    : 'socket: no step ran';
  return {
    name: 'socket',
    headline,
    met,
    targets: {
      sessions: TARGET_SESSIONS,
      p99Ms: P99_LIMIT_MS,
      addedP99Ms: ADDED_P99_LIMIT_MS,
      outputLatenessP99Ms: OUTPUT_LATENESS_P99_LIMIT_MS,
      cpuPerFrameRatioVsRelay: CPU_RATIO_LIMIT,
      largerStepsPassWhereRelayPasses: true,
    },
    results: {
      maxSessionsAtP99: maxSessions,
      atTarget: at
        ? {
            sessions: atTarget.sessions,
            latencyMs: at.latencyMs,
            relayLatencyMs: atTarget.relay.latencyMs,
            // Differences of percentiles: what the service adds over ws, the loopback and the load generator.
            addedLatencyMs: {
              p50: round(at.latencyMs.p50 - atTarget.relay.latencyMs.p50, 1),
              p99: addedP99,
            },
            run: atTarget.run,
            runs: targetRuns.length,
            outputLatenessMs: at.outputLatenessMs,
            worstOutputLatenessP99Ms: worstLateness,
            serverEventLoop: at.serverEventLoop,
            relayEventLoop: atTarget.relay.serverEventLoop,
            otherCoresDuringStep: at.otherCores,
            cpuPerFrameUs: at.cpu.perFrameUs,
            relayCpuPerFrameUs: atTarget.relay.cpu.perFrameUs,
            cpuPerFrameRatio: ratio,
            cpuPerFrameRatioWithDatabase: atTarget.cpuRatioWithDatabase,
            cpuPerSessionPercentOfCore: at.cpu.perSessionPercent,
            memoryPerSessionKb: at.memory.perSessionKb,
            rssPerSessionKb: at.memory.rssPerSessionKb,
            databaseCpuPerFrameUs: at.database?.perFrameUs ?? null,
          }
        : null,
      settings: {
        steps: options.steps,
        windowMs: options.windowMs,
        warmupMs: options.warmupMs,
        runs: options.runs,
        outputEncoding: options.binaryOutput ? 'binary' : 'base64',
        profiled: options.profile,
        framesPerSecondPerSession: 12.5,
      },
      loadAverageAtStart: loadAtStart,
      elapsedSeconds: Math.round(elapsedMs / 1000),
      byStep: summaries,
      steps,
      profile,
    },
  };
}

function profileFile(dir: string, kind: string, sessions: number): string {
  return join(dir, `${kind}-${sessions}.cpuprofile`);
}

interface StepProfiles {
  sessions: number;
  files: { service: string; relay: string };
  service: ProfileSummary;
  relay: ProfileSummary;
}

/** The profiles of the target step (or the largest step below it). */
function profiles(dir: string, ran: number[]): StepProfiles | null {
  const sessions = ran.includes(TARGET_SESSIONS)
    ? TARGET_SESSIONS
    : Math.max(...ran.filter((n) => n < TARGET_SESSIONS), ran[0]);
  const files = { service: profileFile(dir, 'service', sessions), relay: profileFile(dir, 'relay', sessions) };
  if (!existsSync(files.service) || !existsSync(files.relay)) return null;
  return {
    sessions,
    // Kept in a temporary folder of this machine: the report names the files, not the folder.
    files: { service: portablePath(files.service), relay: portablePath(files.relay) },
    service: summarizeProfile(files.service),
    relay: summarizeProfile(files.relay),
  };
}

function printProfile(profiles: StepProfiles, dir: string): void {
  const lines: string[] = [];
  for (const kind of ['service', 'relay'] as const) {
    const profile = profiles[kind];
    lines.push(
      `  ${kind} profile at ${profiles.sessions} sessions (${profile.busyMs} ms busy; ${join(dir, profiles.files[kind])}), by area:`,
    );
    for (const e of profile.byArea.slice(0, 12)) lines.push(`    ${String(e.percent).padStart(5)}%  ${e.name}`);
    lines.push('  by function (self time):');
    for (const e of profile.byFunction.slice(0, kind === 'service' ? 25 : 12))
      lines.push(`    ${String(e.percent).padStart(5)}%  ${e.name}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `socket bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
