/**
 * Meter-write benchmark: what a meter batch costs (service CPU + PostgreSQL backend CPU), and so
 * what metering every 12 frames (0.96 s, at most ~1 s lost to a crash) costs against every 62
 * (4.96 s), per live session.
 *
 *   npm run build && node dist/bench/meter.bench.js [--sessions 200] [--batches 10]
 *
 * `sessions` sessions of one project write `batches` batches each, side by side, each session's in
 * seq order, through MeterService (the path the socket runtime takes). The CPU figures come from
 * process.cpuUsage() and /proc of the database's backends, so other work on a shared machine
 * changes the wall time but hardly the CPU per batch. Results: bench/results/meter.json.
 * BENCH_DATABASE_URL overrides the local PostgreSQL server.
 */
import { Client } from 'pg';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/common/logging/logger';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/database/database.module';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { MeterService } from '../src/modules/usage/meter.service';
import { round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { backendCpu, backendCpuBetween } from './support/socket/database-cpu';

const FRAME_S = 0.08;
const INTERVALS = { before: 62, after: 12 } as const;
/** The socket bench's target: what the interval costs at that many sessions is the headline. */
const SESSIONS_AT_TARGET = 500;
/** At most this share of one core for metering 500 sessions every ~1 s. */
const TARGET_CORE_SHARE = 0.25;

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main(): Promise<void> {
  const sessions = arg('sessions', 200);
  const batches = arg('batches', 10);
  const db = await createScratchDatabase('meter');
  try {
    const config = new AppConfig({
      DATABASE_URL: db.url,
      LOG_LEVEL: 'warn',
      SPEECH_ENGINE: 'scripted',
      SESSION_REAPER_INTERVAL_SECONDS: '0',
    });
    const app = await createApp({
      config,
      database: new DatabaseLocation(db.url, null),
      logger: createRootLogger('warn'),
    });
    const { project } = await app.get(ProjectsService).createProject('meter bench');
    const client = new Client({ connectionString: db.url });
    await client.connect();
    await client.query(
      `INSERT INTO sessions (id, project_id, type, model, status, pool, region, created_at, metadata, audio, frames, cost_micros)
       SELECT 'sess_meter' || lpad(g::text, 6, '0'), $1, 'live', 'vendor-voicechat', 'active', 'default', 'local', now(), '{}', '{}', 0, 0
       FROM generate_series(1, $2) g`,
      [project.id, sessions],
    );
    await client.end();
    const ids = Array.from({ length: sessions }, (_, i) => `sess_meter${String(i + 1).padStart(6, '0')}`);
    const meter = app.get(MeterService);

    const cpuBefore = process.cpuUsage();
    const dbBefore = await backendCpu(db.name);
    const started = process.hrtime.bigint();
    await Promise.all(
      ids.map(async (id) => {
        for (let seq = 1; seq <= batches; seq++) await meter.recordBatch(id, seq, INTERVALS.after);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    const serviceCpuS = (cpu.user + cpu.system) / 1e6;
    const databaseCpuS = backendCpuBetween(dbBefore, await backendCpu(db.name));
    await app.close();

    const total = sessions * batches;
    const perBatchUs = { service: (serviceCpuS / total) * 1e6, database: (databaseCpuS / total) * 1e6 };
    const perBatchTotalUs = perBatchUs.service + perBatchUs.database;
    /** Share of one core that metering SESSIONS_AT_TARGET sessions takes at each interval. */
    const coreShare = (frames: number) => (SESSIONS_AT_TARGET / (frames * FRAME_S)) * perBatchTotalUs * 1e-6;
    const results = {
      sessions,
      batchesPerSession: batches,
      batchesPerSecond: round(total / seconds, 0),
      cpuPerBatchUs: {
        service: round(perBatchUs.service, 1),
        database: round(perBatchUs.database, 1),
        total: round(perBatchTotalUs, 1),
      },
      at500Sessions: {
        every62Frames: {
          batchesPerSecond: round(SESSIONS_AT_TARGET / (62 * FRAME_S), 1),
          coreShare: round(coreShare(62), 4),
        },
        every12Frames: {
          batchesPerSecond: round(SESSIONS_AT_TARGET / (12 * FRAME_S), 1),
          coreShare: round(coreShare(12), 4),
        },
      },
    };
    const added = coreShare(INTERVALS.after) - coreShare(INTERVALS.before);
    const headline =
      `meter: ${round(perBatchTotalUs, 0)} µs CPU per batch (service ${round(perBatchUs.service, 0)} + database ${round(perBatchUs.database, 0)}), ` +
      `${results.batchesPerSecond} batches/s; at 500 sessions every 12 frames costs ${round(coreShare(12) * 100, 1)}% of a core ` +
      `(every 62: ${round(coreShare(62) * 100, 1)}%, +${round(added * 100, 1)} points)`;
    process.stdout.write(`${headline}\n`);
    writeReport({
      name: 'meter',
      headline,
      results,
      targets: { coreShareAt500SessionsEvery12Frames: TARGET_CORE_SHARE },
      met: coreShare(INTERVALS.after) <= TARGET_CORE_SHARE,
    });
  } finally {
    await db.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
