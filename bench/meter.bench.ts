/**
 * Meter-write benchmark: what metering costs (service CPU + PostgreSQL backend CPU) for N live
 * sessions when each writes a batch every 10 frames (0.8 s; with the meter's 150 ms wait to share a
 * statement a crash loses under 1 s of metered audio) against every 62 (4.96 s, as before), with batches arriving as live sessions send them: each session
 * writes at its interval, the sessions spread evenly over it.
 *
 *   npm run build && node dist/bench/meter.bench.js [--sessions 500] [--seconds 10]
 *
 * Batches go through MeterService (the path the socket runtime takes), so concurrent ones share a
 * statement as they do in the service. CPU comes from process.cpuUsage() and /proc of the database's
 * backends: on a shared machine other work changes the wall time but hardly the CPU per batch.
 * Results: bench/results/meter.json. BENCH_DATABASE_URL overrides the local PostgreSQL server.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { MeterService } from '../src/modules/usage/meter.service';
import { round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { backendCpu, backendCpuBetween } from './support/socket/database-cpu';

const FRAME_S = 0.08;
const INTERVALS = [62, 10] as const;
/** At most this share of one core for metering the sessions every ~1 s. */
const TARGET_CORE_SHARE = 0.1;

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

interface IntervalResult {
  frames: number;
  batches: number;
  batchesPerSecond: number;
  cpuPerBatchUs: { service: number; database: number; total: number };
  /** Service + database CPU over the run, in cores. */
  cores: number;
}

async function measure(
  url: string,
  database: string,
  sessions: number,
  seconds: number,
  frames: number,
): Promise<IntervalResult> {
  const config = new AppConfig({
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    SPEECH_ENGINE: 'scripted',
    SESSION_REAPER_INTERVAL_SECONDS: '0',
  });
  tuneHeapForStreaming(); // as main.ts does
  const app = await createApp({ config, database: new DatabaseLocation(url, null), logger: createRootLogger('warn') });
  const { project } = await app.get(ProjectsService).createProject(`meter bench ${frames}`);
  const prefix = `sess_m${frames}x`;
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query(
    `INSERT INTO sessions (id, project_id, type, model, status, pool, region, created_at, metadata, audio, frames, cost_micros)
     SELECT $3 || lpad(g::text, 6, '0'), $1, 'live', 'vendor-voicechat', 'active', 'default', 'local', now(), '{}', '{}', 0, 0
     FROM generate_series(1, $2) g`,
    [project.id, sessions, prefix],
  );
  await client.end();
  const meter = app.get(MeterService);
  const intervalMs = frames * FRAME_S * 1000;
  const rounds = Math.max(1, Math.round((seconds * 1000) / intervalMs));

  const cpuBefore = process.cpuUsage();
  const dbBefore = await backendCpu(database);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      const id = `${prefix}${String(i + 1).padStart(6, '0')}`;
      const offset = (i / sessions) * intervalMs;
      for (let seq = 1; seq <= rounds; seq++) {
        const due = started + offset + (seq - 1) * intervalMs;
        await sleep(Math.max(0, due - performance.now()));
        await meter.recordBatch(id, seq, frames);
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const serviceCpuS = (cpu.user + cpu.system) / 1e6;
  const databaseCpuS = backendCpuBetween(dbBefore, await backendCpu(database));
  await app.close();
  const batches = sessions * rounds;
  return {
    frames,
    batches,
    batchesPerSecond: round(batches / wall, 0),
    cpuPerBatchUs: {
      service: round((serviceCpuS / batches) * 1e6, 1),
      database: round((databaseCpuS / batches) * 1e6, 1),
      total: round(((serviceCpuS + databaseCpuS) / batches) * 1e6, 1),
    },
    cores: round((serviceCpuS + databaseCpuS) / wall, 3),
  };
}

async function main(): Promise<void> {
  const sessions = arg('sessions', 500);
  const seconds = arg('seconds', 10);
  const db = await createScratchDatabase('meter');
  try {
    const byInterval: IntervalResult[] = [];
    for (const frames of INTERVALS) byInterval.push(await measure(db.url, db.name, sessions, seconds, frames));
    const [slow, fast] = byInterval;
    const headline =
      `meter: ${sessions} sessions cost ${round(fast.cores * 100, 1)}% of a core metered every 10 frames ` +
      `(${fast.cpuPerBatchUs.total} µs CPU per batch, ${fast.batchesPerSecond}/s) against ${round(slow.cores * 100, 1)}% every 62 ` +
      `(${slow.cpuPerBatchUs.total} µs per batch, ${slow.batchesPerSecond}/s)`;
    process.stdout.write(`${headline}\n`);
    writeReport({
      name: 'meter',
      headline,
      results: { sessions, seconds, byInterval },
      targets: { coreShareEvery10Frames: TARGET_CORE_SHARE },
      met: fast.cores <= TARGET_CORE_SHARE,
    });
  } finally {
    await db.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
