/**
 * npm run bench                 every case: each dist/bench/<name>.bench.js, one after another
 * npm run bench -- socket rest  only these cases; other arguments (--quick, …) go to each case
 *
 * Cases run as child processes (a crash or a leak in one cannot spoil the next) and write their
 * own bench/results/<name>.json (support/report.ts). This collects them into
 * bench/results/summary.json and prints a table. Exits 1 when a case failed or wrote no report;
 * a missed target is a result, not a failure.
 */
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeBenchmarksDoc } from './support/benchmarks-doc';
import { machineInfo, portablePath, readReport, reportPath, resultsDir, type BenchReport } from './support/report';

const SUFFIX = '.bench.js';
/** A case that hangs is stopped; each case bounds itself well below this. */
const CASE_TIMEOUT_MS = 30 * 60 * 1000;

interface CaseOutcome {
  name: string;
  ran: boolean;
  exitCode: number | null;
  seconds: number | null;
  /** Null when the case wrote no report (or an old one) in this run. */
  met: boolean | null;
  headline: string | null;
  date: string | null;
  report: string | null;
}

function availableCases(): string[] {
  return readdirSync(__dirname)
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => file.slice(0, -SUFFIX.length))
    .sort();
}

function runCase(name: string, args: string[]): Promise<{ exitCode: number | null; seconds: number }> {
  const started = Date.now();
  process.stdout.write(`\n=== ${name} ===\n`);
  const child = spawn(process.execPath, [join(__dirname, `${name}${SUFFIX}`), ...args], { stdio: 'inherit' });
  const timer = setTimeout(() => {
    process.stderr.write(`${name}: still running after ${CASE_TIMEOUT_MS / 60_000} min; stopping it\n`);
    child.kill('SIGTERM');
  }, CASE_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code ?? (signal ? 128 : null), seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

function outcomeOf(
  name: string,
  run: { exitCode: number | null; seconds: number; startedAt: number } | null,
): CaseOutcome {
  const report = readReport(name) as Partial<BenchReport> | null;
  const date = typeof report?.date === 'string' ? report.date : null;
  // A report older than this run's start is a previous run's: it says nothing about this one.
  const fresh = date !== null && (run === null || Date.parse(date) >= run.startedAt);
  return {
    name,
    ran: run !== null,
    exitCode: run?.exitCode ?? null,
    seconds: run?.seconds ?? null,
    met: fresh && typeof report?.met === 'boolean' ? report.met : null,
    headline: fresh && typeof report?.headline === 'string' ? report.headline : null,
    date,
    report: date !== null ? portablePath(reportPath(name)) : null,
  };
}

function status(o: CaseOutcome): string {
  if (o.ran && o.exitCode !== 0) return 'FAILED';
  if (o.ran && o.date === null) return 'no report';
  if (o.met === null) return o.ran ? 'no verdict' : 'not run';
  return o.met ? 'met' : 'missed';
}

function printTable(outcomes: CaseOutcome[]): void {
  const rows = outcomes.map((o) => [o.name, status(o), o.seconds === null ? '' : `${o.seconds}s`, o.headline ?? '']);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length), ['case', 'target', 'time'][i].length));
  const line = (r: string[]) =>
    `${r
      .slice(0, 3)
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')}  ${r[3]}`.trimEnd();
  process.stdout.write(`\n${line(['case', 'target', 'time', 'headline'])}\n${rows.map(line).join('\n')}\n`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const available = availableCases();
  const named = argv.filter((a) => !a.startsWith('-') && available.includes(a));
  const unknown = argv.filter((a, i) => !a.startsWith('-') && !available.includes(a) && !argv[i - 1]?.startsWith('--'));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown bench case(s) ${unknown.join(', ')}; available: ${available.join(', ') || 'none (npm run build first)'}\n`,
    );
    process.exit(2);
  }
  const passThrough = argv.filter((a) => !named.includes(a));
  const selected = named.length > 0 ? named : available;
  const runs = new Map<string, { exitCode: number | null; seconds: number; startedAt: number }>();
  for (const name of selected) {
    const startedAt = Date.now();
    runs.set(name, { ...(await runCase(name, passThrough)), startedAt });
  }

  // Every case with a report, so one case's run does not hide the others' latest results.
  const outcomes = available.map((name) => outcomeOf(name, runs.get(name) ?? null));
  const summary = {
    date: new Date().toISOString(),
    machine: machineInfo(),
    ran: selected,
    met: outcomes.filter((o) => o.ran).every((o) => o.met === true),
    cases: outcomes,
  };
  writeFileSync(join(resultsDir(), 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  printTable(outcomes);
  process.stdout.write(`→ ${join(resultsDir(), 'summary.json')}\n→ ${writeBenchmarksDoc()}\n`);
  if (outcomes.some((o) => o.ran && (o.exitCode !== 0 || o.date === null))) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench runner failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
