/**
 * Export benchmark: meter events per second through GET /v1/usage/normalized-meter-events, and the
 * service's memory while it streams them, on real PostgreSQL.
 *
 *   npm run build && node dist/bench/export.bench.js [--events 1000000] [--rounds 3] [--quick] [--cpu-prof]
 *
 * The service runs in a child process (a fork of this file) so that its RSS, read from /proc, is the
 * service's alone: the reader here (which only counts newlines) and the seeding do not blur it.
 * One scratch database is created for the run and dropped after it; the events are seeded with one
 * INSERT … SELECT generate_series. Each round reads the whole range once; the memory figure is the
 * child's peak RSS during the round minus its RSS just before it (sampled every 20 ms).
 * Results: bench/results/export.json. BENCH_DATABASE_URL overrides the local server.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { summarizeProfile, type ProfileSummary } from './support/cpu-profile';
import { cpuSeconds, rssMb } from './support/proc-usage';
import { resultsDir, round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';

const TARGET_EVENTS_PER_SECOND = 200_000;
const TARGET_PEAK_GROWTH_MB = 100;
const EVENTS_PER_SESSION = 200;

interface Ready {
  port: number;
  apiKey: string;
  projectId: string;
}

interface Round {
  round: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  megabytesPerSecond: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  peakGrowthMb: number;
  serviceCpuSeconds: number;
}

const flag = (name: string) => process.argv.includes(`--${name}`);
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

// ---- child: the service ------------------------------------------------------------------------

async function serve(url: string): Promise<void> {
  const config = new AppConfig({
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    SPEECH_ENGINE: 'scripted',
    SESSION_REAPER_INTERVAL_SECONDS: '0',
  });
  tuneHeapForStreaming(); // as main.ts does
  const app = await createApp({ config, database: new DatabaseLocation(url, null), logger: createRootLogger('warn') });
  await app.listen(0, '127.0.0.1');
  const { project, secret } = await app.get(ProjectsService).createProject('export bench');
  const ready: Ready = {
    port: (app.getHttpServer().address() as AddressInfo).port,
    apiKey: secret,
    projectId: project.id,
  };
  process.send!(ready);
}

// ---- parent: seed, read, measure ---------------------------------------------------------------

async function seed(url: string, projectId: string, events: number): Promise<number> {
  const started = Date.now();
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const sessions = Math.ceil(events / EVENTS_PER_SESSION);
    await client.query(
      `INSERT INTO sessions (id, project_id, type, model, status, pool, region, created_at, metadata, audio, frames, cost_micros)
       SELECT 'sess_bench' || lpad(g::text, 8, '0'), $1, 'live', 'vendor-voicechat', 'closed', 'default', 'local',
              timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second', '{}', '{}', 0, 0
       FROM generate_series(0, $2 - 1) g`,
      [projectId, sessions],
    );
    await client.query(
      `INSERT INTO meter_events (id, session_id, project_id, seq, frames, cost_micros, recorded_at)
       SELECT 'mev_sess_bench' || lpad((g / $2)::text, 8, '0') || '_' || (g % $2 + 1),
              'sess_bench' || lpad((g / $2)::text, 8, '0'), $1, g % $2 + 1, 62, 4960,
              timestamptz '2026-01-01 00:00:00+00' + g * interval '1 millisecond'
       FROM generate_series(0, $3 - 1) g`,
      [projectId, EVENTS_PER_SESSION, events],
    );
    await client.query('VACUUM ANALYZE meter_events');
    await client.query('VACUUM ANALYZE sessions');
  } finally {
    await client.end();
  }
  return (Date.now() - started) / 1000;
}

/** Reads the whole stream as fast as it comes, counting lines; returns the count. */
function readAll(ready: Ready): Promise<{ lines: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(
      `http://127.0.0.1:${ready.port}/v1/usage/normalized-meter-events`,
      { headers: { authorization: `Bearer ${ready.apiKey}` } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
        let lines = 0;
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        });
        res.on('end', () => resolve({ lines, bytes }));
        res.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

async function measureRound(n: number, child: ChildProcess, ready: Ready): Promise<Round> {
  const pid = child.pid!;
  await new Promise((r) => setTimeout(r, 500)); // let the previous round's garbage settle
  const rssBefore = rssMb(pid) ?? 0;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid) ?? 0)), 20);
  const cpuBefore = cpuSeconds(pid) ?? 0;
  const started = process.hrtime.bigint();
  const { lines, bytes } = await readAll(ready);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, rssMb(pid) ?? 0);
  return {
    round: n,
    events: lines,
    seconds: round(seconds, 3),
    eventsPerSecond: Math.round(lines / seconds),
    megabytesPerSecond: round(bytes / 2 ** 20 / seconds, 1),
    rssBeforeMb: round(rssBefore, 1),
    rssPeakMb: round(rssPeak, 1),
    peakGrowthMb: round(rssPeak - rssBefore, 1),
    serviceCpuSeconds: round((cpuSeconds(pid) ?? 0) - cpuBefore, 2),
  };
}

async function main(): Promise<void> {
  const quick = flag('quick');
  const events = arg('events', quick ? 200_000 : 1_000_000);
  const rounds = arg('rounds', quick ? 1 : 3);
  const profile = flag('cpu-prof');
  const db = await createScratchDatabase('export');
  const profileDir = join(resultsDir(), 'export-cpu-profile.tmp');
  rmSync(profileDir, { recursive: true, force: true }); // a previous run's profile must not be read as this one's
  const child = fork(__filename, ['--serve', db.url], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Ready));
      child.once('exit', (code) => reject(new Error(`the service exited (${code}) before it was ready`)));
    });
    process.stdout.write(`seeding ${events.toLocaleString('en')} meter events …\n`);
    const seedSeconds = await seed(db.url, ready.projectId, events);
    process.stdout.write(`seeded in ${seedSeconds.toFixed(1)} s; streaming ${rounds} round(s)\n`);
    const results: Round[] = [];
    for (let i = 1; i <= rounds; i++) {
      const r = await measureRound(i, child, ready);
      if (r.events !== events) throw new Error(`round ${i} read ${r.events} events, expected ${events}`);
      results.push(r);
      process.stdout.write(
        `round ${i}: ${r.eventsPerSecond.toLocaleString('en')} events/s (${r.megabytesPerSecond} MB/s, ${r.seconds} s), ` +
          `service RSS ${r.rssBeforeMb} → peak ${r.rssPeakMb} MB (+${r.peakGrowthMb}), CPU ${r.serviceCpuSeconds} s\n`,
      );
    }
    child.kill('SIGTERM');
    await exited;
    let cpuProfile: ProfileSummary | null = null;
    if (profile) {
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      cpuProfile = file ? summarizeProfile(join(profileDir, file), 15) : null;
    }
    const sorted = [...results].sort((a, b) => a.eventsPerSecond - b.eventsPerSecond);
    const median = sorted[Math.floor(sorted.length / 2)];
    const peakGrowth = Math.max(...results.map((r) => r.peakGrowthMb));
    const met = median.eventsPerSecond > TARGET_EVENTS_PER_SECOND && peakGrowth < TARGET_PEAK_GROWTH_MB;
    const path = writeReport({
      name: 'export',
      headline: `${median.eventsPerSecond.toLocaleString('en')} events/s (median of ${rounds}), peak RSS growth ${peakGrowth} MB, ${events.toLocaleString('en')} events`,
      results: {
        events,
        seedSeconds: round(seedSeconds, 1),
        medianEventsPerSecond: median.eventsPerSecond,
        peakGrowthMb: peakGrowth,
        rounds: results,
        cpuProfile,
      },
      targets: { eventsPerSecond: `> ${TARGET_EVENTS_PER_SECOND}`, peakGrowthMb: `< ${TARGET_PEAK_GROWTH_MB}` },
      met,
    });
    process.stdout.write(`${met ? 'met' : 'MISSED'} the targets; report: ${path}\n`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await db.drop();
  }
}

const serving = process.argv.indexOf('--serve');
(serving > 0 ? serve(process.argv[serving + 1]) : main()).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
