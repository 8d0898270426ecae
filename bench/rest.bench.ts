/**
 * REST benchmark: client secrets created per second against the real service on real PostgreSQL,
 * side by side with a baseline of bare Fastify doing one INSERT per request on the same server.
 *
 *   npm run build && node dist/bench/rest.bench.js [--duration 10] [--rounds 2] [--connections 50]
 *     [--only service] [--cpu-prof]
 *
 * Scenarios, each against a fresh server process (autocannon's load generation keeps its own event
 * loop), on one scratch database created for the run and dropped after it, same pool size everywhere:
 * - baseline: bare Fastify, one INSERT per request;
 * - service: POST /v1/live/client_secrets for 1,000 projects, each with its API key, the requests
 *   taking the keys in turn, at the shipped limits (10 open sessions and 600 requests a minute per
 *   project and key); this is what the target is judged on;
 * - service-busy-tenants: one project and key per connection, limits raised far above the load, so
 *   each project holds ~40 open sessions and every admission counts them;
 * - service-one-key: a single project and key with the raised limits, the worst case: every request
 *   queues on that key's rate-limit row and that project's admission lock.
 * Secrets lapse after 1 s (the body asks so), so a project's open sessions stay near what one second
 * of its load creates.
 * `--only <scenario>` runs the baseline, the service and that scenario (for development: the report then
 * lacks the others). `--cpu-prof` profiles each service process over its measured load (not its warm-up)
 * and reports where its CPU went, per scenario; the profiles are kept in a temporary folder it names.
 * Results: bench/results/rest.json. BENCH_DATABASE_URL overrides the local server.
 */
import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import fastify from 'fastify';
import { Pool } from 'pg';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { summarizeProfile, type ProfileSummary } from './support/cpu-profile';
import { cpuSeconds, totalCpuSeconds } from './support/proc-usage';
import { writeReport } from './support/report';
import { adminQuery, createScratchDatabase } from './support/scratch-database';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type AutocannonClient = { setHeaders(headers: Record<string, string>): void };
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = require('autocannon') as Autocannon;

type Scenario = 'baseline' | ServiceScenario;
type ServiceScenario = keyof typeof SERVICE_SCENARIOS;

interface ServiceScenarioSpec {
  projects: (connections: number) => number;
  /** Service settings beyond the shared ones; none: the shipped defaults. */
  env: Record<string, string>;
  /** Whether each request takes the next key, or each connection keeps one. */
  keyPerRequest: boolean;
}

const RAISED_LIMITS = { CONCURRENT_SESSIONS_LIMIT: '100000', RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000' };
const SERVICE_SCENARIOS = {
  service: { projects: () => 1000, env: {}, keyPerRequest: true },
  'service-busy-tenants': { projects: (connections) => connections, env: RAISED_LIMITS, keyPerRequest: false },
  'service-one-key': { projects: () => 1, env: RAISED_LIMITS, keyPerRequest: false },
} satisfies Record<string, ServiceScenarioSpec>;
const SCENARIOS: Scenario[] = ['baseline', ...(Object.keys(SERVICE_SCENARIOS) as ServiceScenario[])];
interface Ready {
  port: number;
  path: string;
  keys: string[];
  keyPerRequest: boolean;
}
interface Run {
  round: number;
  scenario: Scenario;
  requestsPerSecond: number;
  requests: number;
  latencyMs: { p50: number; p90: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  /** CPU per request over the measured run, µs: the server process, and its database's backends. */
  cpuUsPerRequest: { server: number | null; database: number | null };
  /** Transactions the database committed or rolled back per request (its statistics, flushed about each second). */
  transactionsPerRequest: number;
  profile?: ProfileSummary;
}

/** Issue 17: judged on the 1,000-project scenario at 50 connections. */
const TARGETS = { ratioAtLeast: 0.7, serviceP99BelowMs: 20 };
const POOL_SIZE = 10;
const BODY = JSON.stringify({
  expires_after: { seconds: 1 },
  metadata: { bench: 'rest' },
  session: { type: 'transcription' },
});
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

// ---- child side: one server, announced to the parent over IPC ------------------------------------

async function serveService(url: string, spec: ServiceScenarioSpec, connections: number): Promise<Ready> {
  tuneHeapForStreaming(); // as main.ts does: the service runs as production runs it
  const config = new AppConfig({
    DATABASE_URL: url,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    SPEECH_ENGINE: 'scripted',
    LOG_LEVEL: 'warn',
    ...spec.env,
  });
  const app = await createApp({ config, database: new DatabaseLocation(url, null), logger: createRootLogger('warn') });
  await app.listen(0, '127.0.0.1');
  const keys: string[] = [];
  const projects = spec.projects(connections);
  for (let i = 0; i < projects; i++) keys.push((await app.get(ProjectsService).createProject(`bench ${i}`)).secret);
  // The app's own shutdown hooks close it on SIGTERM.
  const port = (app.getHttpServer().address() as AddressInfo).port;
  return { port, path: '/v1/live/client_secrets', keys, keyPerRequest: spec.keyPerRequest };
}

async function serveBaseline(url: string): Promise<Ready> {
  const pool = new Pool({ connectionString: url, max: POOL_SIZE });
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench_baseline (id varchar(40) PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
  );
  const app = fastify({ logger: false });
  app.post('/baseline', async (request) => {
    const id = `bl_${randomBytes(18).toString('base64url')}`;
    const { rows } = await pool.query('INSERT INTO bench_baseline (id, body) VALUES ($1, $2) RETURNING created_at', [
      id,
      request.body,
    ]);
    return { id, created_at: Math.floor((rows[0].created_at as Date).getTime() / 1000) };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.once(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
  return { port: (app.server.address() as AddressInfo).port, path: '/baseline', keys: [], keyPerRequest: false };
}

async function child(scenario: Scenario, url: string, connections: number): Promise<void> {
  const ready =
    scenario === 'baseline'
      ? await serveBaseline(url)
      : await serveService(url, SERVICE_SCENARIOS[scenario], connections);
  let profiler: Session | null = null;
  process.on('message', (message: { profile: 'start' | 'stop'; path?: string }) => {
    void (async () => {
      if (message.profile === 'start') {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      } else if (profiler) {
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(message.path!, JSON.stringify(profile));
        profiler.disconnect();
      }
      process.send!({ profiled: message.profile });
    })();
  });
  process.send!(ready);
}

/** Asks the server to start or stop its CPU profile; resolves when it has. */
function profiling(proc: ChildProcess, profile: 'start' | 'stop', path?: string): Promise<void> {
  return new Promise((done) => {
    const heard = (message: { profiled?: string }) => {
      if (message?.profiled !== profile) return;
      proc.off('message', heard);
      done();
    };
    proc.on('message', heard);
    proc.send({ profile, path });
  });
}

async function transactions(database: string): Promise<number> {
  const [row] = await adminQuery<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
    [database],
  );
  return Number(row.n);
}

/** The PostgreSQL backends serving the scratch database; none when the server is not on this machine. */
async function backendPids(database: string): Promise<number[]> {
  const rows = await adminQuery<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  return rows.map((row) => row.pid).filter((pid) => cpuSeconds(pid) !== null);
}

// ---- parent side: databases, load, report ---------------------------------------------------------

function start(scenario: Scenario, url: string, connections: number): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = fork(__filename, ['--serve', scenario, url, String(connections)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('message', (ready: Ready) => resolve({ proc, ready }));
    proc.once('exit', (code) => reject(new Error(`${scenario} server exited (${code}) before it was ready`)));
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  const exited = new Promise((done) => proc.once('exit', done));
  proc.kill('SIGTERM');
  await exited;
}

async function load(
  scenario: Scenario,
  database: { url: string; name: string },
  connections: number,
  duration: number,
  round: number,
  profileDir: string | null,
): Promise<Run> {
  const { proc, ready } = await start(scenario, database.url, connections);
  try {
    let next = 0;
    const headers = () => {
      const key = ready.keys[next++ % Math.max(1, ready.keys.length)];
      return { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
    };
    const options = {
      url: `http://127.0.0.1:${ready.port}${ready.path}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
      connections,
      ...(ready.keyPerRequest
        ? { requests: [{ setupRequest: (request: object) => ({ ...request, headers: headers() }) }] }
        : { setupClient: (client: AutocannonClient) => client.setHeaders(headers()) }),
    };
    await autocannon({ ...options, duration: 3 }); // warm-up: JIT, pools, caches
    const profilePath = profileDir && join(profileDir, `${scenario}-${round}.cpuprofile`);
    if (profilePath) await profiling(proc, 'start');
    const backends = await backendPids(database.name);
    const transactionsBefore = await transactions(database.name);
    const cpuBefore = { server: cpuSeconds(proc.pid!), database: totalCpuSeconds(backends) };
    const r = await autocannon({ ...options, duration });
    const cpuAfter = { server: cpuSeconds(proc.pid!), database: totalCpuSeconds(backends) };
    // Backends report their counts when idle for a moment.
    await new Promise((done) => setTimeout(done, 1500));
    const transactionsDuring = (await transactions(database.name)) - transactionsBefore;
    if (profilePath) await profiling(proc, 'stop', profilePath);
    const perRequest = (seconds: number | null) =>
      seconds === null || r.requests.total === 0 ? null : Math.round((seconds * 1e6) / r.requests.total);
    return {
      round,
      scenario,
      requestsPerSecond: Math.round(r.requests.average),
      requests: r.requests.total,
      latencyMs: (({ p50, p90, p99, average, max }) => ({ p50, p90, p99, average, max }))(r.latency),
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      cpuUsPerRequest: {
        server: perRequest(cpuAfter.server! - cpuBefore.server!),
        database: backends.length > 0 ? perRequest(cpuAfter.database - cpuBefore.database) : null,
      },
      transactionsPerRequest: Math.round((transactionsDuring / Math.max(1, r.requests.total)) * 1000) / 1000,
      ...(profilePath ? { profile: summarizeProfile(profilePath, 30) } : {}),
    };
  } finally {
    await stop(proc);
  }
}

async function main(): Promise<void> {
  const duration = arg('duration', 10);
  const rounds = arg('rounds', 2);
  const connections = arg('connections', 50);
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
  const scenarios = only ? SCENARIOS.filter((s) => s === 'baseline' || s === 'service' || s === only) : SCENARIOS;
  const profileDir = process.argv.includes('--cpu-prof') ? mkdtempSync(join(tmpdir(), 'rest-bench-')) : null;
  // Everything shares this machine's cores: a busy machine shows in the results.
  const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);
  const database = await createScratchDatabase('rest');
  try {
    const runs: Run[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const scenario of scenarios) {
        const run = await load(scenario, database, connections, duration, round, profileDir);
        runs.push(run);
        process.stdout.write(
          `round ${round} ${scenario}: ${run.requestsPerSecond} req/s, p50 ${run.latencyMs.p50} ms, p99 ${run.latencyMs.p99} ms, ` +
            `non-2xx ${run.non2xx}, errors ${run.errors}, CPU/request: server ${run.cpuUsPerRequest.server} µs, ` +
            `database ${run.cpuUsPerRequest.database} µs, transactions ${run.transactionsPerRequest}, load ${loadavg()[0].toFixed(2)}\n`,
        );
        if (run.profile) printProfile(run.profile);
      }
    }
    const mean = (scenario: Scenario, pick: (r: Run) => number) => {
      const of = runs.filter((r) => r.scenario === scenario);
      return Math.round((of.reduce((sum, r) => sum + pick(r), 0) / of.length) * 100) / 100;
    };
    const summarize = (scenario: Scenario) => ({
      requestsPerSecond: mean(scenario, (r) => r.requestsPerSecond),
      latencyMs: { p50: mean(scenario, (r) => r.latencyMs.p50), p99: mean(scenario, (r) => r.latencyMs.p99) },
      ratioToBaseline:
        Math.round((mean(scenario, (r) => r.requestsPerSecond) / mean('baseline', (r) => r.requestsPerSecond)) * 1000) /
        1000,
      /** Each round's ratio to the baseline run just before it, so that load drifting between rounds cancels. */
      medianRoundRatio: median(
        runs
          .filter((r) => r.scenario === scenario)
          .map(
            (r) =>
              r.requestsPerSecond /
              runs.find((b) => b.round === r.round && b.scenario === 'baseline')!.requestsPerSecond,
          ),
      ),
      failedRequests: runs.filter((r) => r.scenario === scenario).reduce((sum, r) => sum + r.non2xx + r.errors, 0),
      cpuUsPerRequest: {
        server: meanOrNull(scenario, (r) => r.cpuUsPerRequest.server),
        database: meanOrNull(scenario, (r) => r.cpuUsPerRequest.database),
      },
    });
    const meanOrNull = (scenario: Scenario, pick: (r: Run) => number | null) =>
      runs.some((r) => r.scenario === scenario && pick(r) === null)
        ? null
        : Math.round(mean(scenario, (r) => pick(r)!));
    const ran = (scenario: Scenario) => (scenarios.includes(scenario) ? summarize(scenario) : undefined);
    const summary = {
      baseline: summarize('baseline'),
      service: summarize('service'),
      serviceBusyTenants: ran('service-busy-tenants'),
      serviceOneKey: ran('service-one-key'),
    };
    const met = {
      ratio: summary.service.medianRoundRatio >= TARGETS.ratioAtLeast,
      p99: summary.service.latencyMs.p99 < TARGETS.serviceP99BelowMs,
    };
    const out = writeReport({
      name: 'rest',
      headline:
        `${summary.service.requestsPerSecond} secrets/s = ${summary.service.medianRoundRatio} of bare Fastify + INSERT ` +
        `(${summary.baseline.requestsPerSecond}/s); p99 ${summary.service.latencyMs.p99} ms at ${connections} connections`,
      results: {
        // Everything shares this machine's cores: a busy machine shows in the results.
        loadAverage1mBefore: loadBefore[0],
        settings: {
          connections,
          durationSeconds: duration,
          rounds,
          poolSize: POOL_SIZE,
          body: JSON.parse(BODY) as unknown,
          database: 'PostgreSQL, local',
          scenarios: Object.fromEntries(
            Object.entries(SERVICE_SCENARIOS).map(([scenario, spec]) => [
              scenario,
              { projects: spec.projects(connections), keyPerRequest: spec.keyPerRequest, limits: spec.env },
            ]),
          ),
        },
        summary,
        met,
        runs,
      },
      targets: TARGETS,
      met: met.ratio && met.p99,
    });
    const line = (label: string, s: ReturnType<typeof summarize> | undefined) =>
      s
        ? `  ${label}: ${s.requestsPerSecond} req/s, p50 ${s.latencyMs.p50} ms, p99 ${s.latencyMs.p99} ms, ratio ${s.ratioToBaseline} ` +
          `(median per round ${s.medianRoundRatio}), CPU/request: server ${s.cpuUsPerRequest.server} µs, database ${s.cpuUsPerRequest.database} µs\n`
        : '';
    process.stdout.write(
      `REST bench → ${out}\n${line('baseline', summary.baseline)}${line('service (1,000 projects)', summary.service)}` +
        line('service (busy tenants)', summary.serviceBusyTenants) +
        line('service (one key)', summary.serviceOneKey),
    );
  } finally {
    await database.drop();
    if (profileDir) process.stdout.write(`CPU profiles (.cpuprofile, for Chrome DevTools) kept in ${profileDir}\n`);
  }
}

function printProfile(profile: ProfileSummary): void {
  const lines = [`    profile: ${profile.busyMs} ms busy; by area:`];
  for (const e of profile.byArea.slice(0, 15)) lines.push(`      ${String(e.percent).padStart(5)}%  ${e.name}`);
  lines.push('    by function (self time):');
  for (const e of profile.byFunction.slice(0, 30)) lines.push(`      ${String(e.percent).padStart(5)}%  ${e.name}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return Math.round(value * 1000) / 1000;
}

const serving = process.argv.indexOf('--serve');
const run =
  serving > 0
    ? child(process.argv[serving + 1] as Scenario, process.argv[serving + 2], Number(process.argv[serving + 3]))
    : main();
run.catch((error: unknown) => {
  process.stderr.write(
    `rest bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
