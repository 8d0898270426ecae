/**
 * REST benchmark: client secrets created per second against the real service on real PostgreSQL,
 * side by side with a baseline of bare Fastify doing one INSERT per request on the same server.
 *
 *   npm run build && node dist/bench/rest.bench.js [--duration 10] [--rounds 2] [--connections 50]
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
 * Results: bench/results/rest.json. BENCH_DATABASE_URL overrides the local server.
 */
import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import fastify from 'fastify';
import { Pool } from 'pg';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/common/logging/logger';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/database/database.module';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';

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
}

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
  process.send!(ready);
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
  url: string,
  connections: number,
  duration: number,
  round: number,
): Promise<Run> {
  const { proc, ready } = await start(scenario, url, connections);
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
    const r = await autocannon({ ...options, duration });
    return {
      round,
      scenario,
      requestsPerSecond: Math.round(r.requests.average),
      requests: r.requests.total,
      latencyMs: (({ p50, p90, p99, average, max }) => ({ p50, p90, p99, average, max }))(r.latency),
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
    };
  } finally {
    await stop(proc);
  }
}

async function main(): Promise<void> {
  const duration = arg('duration', 10);
  const rounds = arg('rounds', 2);
  const connections = arg('connections', 50);
  // Everything shares this machine's cores: a busy machine shows in the results.
  const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);
  const database = await createScratchDatabase('rest');
  const { url } = database;
  try {
    const runs: Run[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const scenario of SCENARIOS) {
        const run = await load(scenario, url, connections, duration, round);
        runs.push(run);
        process.stdout.write(
          `round ${round} ${scenario}: ${run.requestsPerSecond} req/s, p50 ${run.latencyMs.p50} ms, p99 ${run.latencyMs.p99} ms, ` +
            `non-2xx ${run.non2xx}, errors ${run.errors}\n`,
        );
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
    });
    const summary = {
      baseline: summarize('baseline'),
      service: summarize('service'),
      serviceBusyTenants: summarize('service-busy-tenants'),
      serviceOneKey: summarize('service-one-key'),
    };
    const met = { ratio: summary.service.medianRoundRatio >= 0.5, p99: summary.service.latencyMs.p99 < 50 };
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
      targets: { ratioAtLeast: 0.5, serviceP99BelowMs: 50 },
      met: met.ratio && met.p99,
    });
    const line = (label: string, s: ReturnType<typeof summarize>) =>
      `  ${label}: ${s.requestsPerSecond} req/s, p50 ${s.latencyMs.p50} ms, p99 ${s.latencyMs.p99} ms, ratio ${s.ratioToBaseline} (median per round ${s.medianRoundRatio})\n`;
    process.stdout.write(
      `REST bench → ${out}\n${line('baseline', summary.baseline)}${line('service (1,000 projects)', summary.service)}` +
        line('service (busy tenants)', summary.serviceBusyTenants) +
        line('service (one key)', summary.serviceOneKey),
    );
  } finally {
    await database.drop();
  }
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
