/**
 * The one shape every benchmark case writes to bench/results/<name>.json, so that `npm run bench`
 * can summarise cases it knows nothing about. A case calls writeReport() once, at its end.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  /** Total memory, GiB. */
  memory: number;
  node: string;
  /** 1, 5 and 15 minute load averages when the report was written: the machine may be shared. */
  loadAverage: number[];
  /** The commit the figures were measured on (null outside a git checkout). */
  commit: string | null;
  /** True when the working tree had uncommitted changes: the figures are not exactly the commit's. */
  dirty: boolean;
  /**
   * One core's speed at this service's kind of work (calibrationRounds): machines of one name differ,
   * and a figure measured on a slower one reads as a regression without it. Higher is faster.
   */
  calibrationPerSecond?: number;
}

export interface BenchReport<R = unknown> {
  name: string;
  date: string;
  machine: MachineInfo;
  /** One line for the summary table: the figures that decide `met`. */
  headline: string;
  results: R;
  targets: Record<string, number | string | boolean>;
  met: boolean;
}

export type ReportInput<R> = Omit<BenchReport<R>, 'date' | 'machine'>;

export function machineInfo(): MachineInfo {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memory: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    loadAverage: loadavg().map((value) => round(value, 2)),
    ...gitAtStart,
    calibrationPerSecond: calibrationAtStart,
  };
}

/**
 * Rounds per second of a fixed piece of the work a session does (a frame's base64 decoded and encoded,
 * a JSON event parsed and rendered), the best of five: the best is the least disturbed by other load.
 */
function calibrationRounds(): number {
  const audio = Buffer.alloc(3840, 7).toString('base64');
  const event = JSON.stringify({ type: 'input_audio_buffer.append', audio });
  let best = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    const started = performance.now();
    let rounds = 0;
    while (performance.now() - started < 20) {
      for (let i = 0; i < 20; i++) {
        const parsed = JSON.parse(event) as { audio: string };
        JSON.stringify({ ...parsed, audio: Buffer.from(parsed.audio, 'base64').toString('base64') });
      }
      rounds += 20;
    }
    best = Math.max(best, rounds / ((performance.now() - started) / 1000));
  }
  return Math.round(best);
}

const calibrationAtStart = calibrationRounds();

// Read when a case starts, not when it writes its report: the checkout may change during a long run.
const gitAtStart = gitState();

function gitState(): { commit: string | null; dirty: boolean } {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repoRoot(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', 'HEAD');
    // bench/results/ changes as the cases run; only the code decides whether the figures are the commit's.
    const dirty = git(
      'status',
      '--porcelain',
      '--untracked-files=no',
      '--',
      '.',
      ':(exclude)bench/results',
      ':(exclude)docs/benchmarks.md',
    );
    return { commit, dirty: dirty !== '' };
  } catch {
    return { commit: null, dirty: false };
  }
}

/**
 * A path as the results may hold it: relative to the repository (or just the file's name when it is
 * outside it), so that no result names the directories of the machine that ran it.
 */
export function portablePath(path: string): string {
  const inRepo = relative(repoRoot(), path);
  const outside = inRepo.startsWith('..') || inRepo === path;
  return (outside ? path.slice(path.lastIndexOf(sep) + 1) : inRepo).split(sep).join('/');
}

/** The repository root, whether running from bench/ (ts-node) or dist/bench/. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export function resultsDir(): string {
  return join(repoRoot(), 'bench', 'results');
}

export function reportPath(name: string): string {
  return join(resultsDir(), `${name}.json`);
}

/** Writes the report atomically (a reader never sees half a file) and returns its path. */
export function writeReport<R>(input: ReportInput<R>): string {
  const report: BenchReport<R> = {
    name: input.name,
    date: new Date().toISOString(),
    machine: machineInfo(),
    headline: input.headline,
    results: input.results,
    targets: input.targets,
    met: input.met,
  };
  const path = reportPath(input.name);
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.tmp`;
  writeFileSync(partial, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(partial, path);
  return path;
}

/** A case's report as written, or null when it is missing or not JSON. */
export function readReport(name: string): Partial<BenchReport> | null {
  try {
    return JSON.parse(readFileSync(reportPath(name), 'utf8')) as Partial<BenchReport>;
  } catch {
    return null;
  }
}

export function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}
