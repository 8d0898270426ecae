/**
 * The one shape every benchmark case writes to bench/results/<name>.json, so that `npm run bench`
 * can summarise cases it knows nothing about. A case calls writeReport() once, at its end.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  /** Total memory, GiB. */
  memory: number;
  node: string;
  /** 1, 5 and 15 minute load averages when the report was written: the machine may be shared. */
  loadAverage: number[];
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
  };
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
