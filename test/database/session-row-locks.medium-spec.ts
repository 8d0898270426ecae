import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { HeldSessionsRepository } from '../../src/modules/sessions/held-sessions.repository';
import { SessionAdmissionRepository } from '../../src/modules/sessions/session-admission.repository';
import { MeterEventsRepository, NewMeterBatch } from '../../src/modules/usage/meter-events.repository';
import { SessionReaperRepository } from '../../src/modules/sessions/session-reaper.repository';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';
import { AUDIO, newSessionId, VOICECHAT } from '../e2e/usage-fixtures';

const describeOnPostgres = databaseTargets().includes('postgres') ? describe : describe.skip;

const COST = 7;

/**
 * Every writer of many session rows in one transaction must lock them in the same order (by id, as
 * continuum_record_meter_batches() does), or two of them on overlapping rows can wait on each other:
 * PostgreSQL then aborts one with 40P01. Only a real server runs statements side by side.
 */
describeOnPostgres('session row locks under concurrent writers (PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let projectId: string;

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    dataSource = await new DataSource(dataSourceOptions(db.url, 12)).initialize();
    await dataSource.runMigrations({ transaction: 'each' });
  }, 60_000);
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  beforeEach(async () => {
    projectId = `proj_${randomBytes(8).toString('hex')}`;
    await dataSource.query(
      `INSERT INTO projects (id, name, balance_micros, credit_limit_micros) VALUES ($1, 'locks', 0, NULL)`,
      [projectId],
    );
  });

  /** Active sessions held by instance `one`, written in the order given (their physical order). */
  const openSessions = async (ids: readonly string[], heartbeatSecondsAgo = 0): Promise<void> => {
    await dataSource.query(
      `INSERT INTO sessions (id, project_id, type, model, status, pool, region, started_at, heartbeat_at, instance_id, audio)
       SELECT id, $2, 'live', $3, 'active', 'default', 'local', now(), now() - make_interval(secs => $4), 'one', $5
         FROM unnest($1::varchar[]) WITH ORDINALITY AS i(id, n) ORDER BY n`,
      [ids, projectId, VOICECHAT, heartbeatSecondsAgo, JSON.stringify(AUDIO)],
    );
    // Statistics as a live table has them, so the planner picks the plans it picks in production.
    await dataSource.query('ANALYZE sessions');
  };

  /** Each session's metered frames, and the project's balance. */
  const totals = async (ids: readonly string[]) => {
    const rows: { id: string; frames: number }[] = await dataSource.query(
      'SELECT id, frames FROM sessions WHERE id = ANY($1)',
      [ids],
    );
    const [{ balance }]: { balance: string }[] = await dataSource.query(
      'SELECT balance_micros AS balance FROM projects WHERE id = $1',
      [projectId],
    );
    return { frames: new Map(rows.map((r) => [r.id, r.frames])), balance: Number(balance) };
  };

  /** Until `count` statements on this database wait for a lock. */
  const lockWaiters = async (count: number): Promise<void> => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const [{ n }]: { n: string }[] = await dataSource.query(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (Number(n) === count) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`never saw ${count} statements waiting for a lock`);
  };

  const SILENT_SECONDS = 600;
  /** A writer of many session rows, and what it answers for the three rows of the test below. */
  const writers: [string, (ids: string[]) => Promise<unknown>, (ids: string[]) => unknown][] = [
    [
      'a heartbeat',
      (ids) => new HeldSessionsRepository(dataSource).heartbeat('one', ids),
      () => ({ deleted: [], keyRevoked: [] }),
    ],
    [
      'the reaper',
      async () => (await new SessionReaperRepository(dataSource).closeSilentSessions(SILENT_SECONDS)).sort(),
      (ids) => ids,
    ],
  ];

  /**
   * Rows a < b < c written as c, b, a: a writer that locks them as it scans them takes c first. With b
   * held elsewhere, the writer holds c and waits for b, then a meter batch of a and c takes a and waits
   * for c; once b is free, a writer out of id order would wait for a: a cycle.
   */
  it.each(writers)(
    'a meter batch and %s on the same rows wait in turn instead of deadlocking',
    async (_, write, answer) => {
      const [a, b, c] = Array.from({ length: 3 }, newSessionId).sort();
      await openSessions([c, b, a], 2 * SILENT_SECONDS);
      const blocker = new Client({ connectionString: db.url });
      await blocker.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT 1 FROM sessions WHERE id = $1 FOR NO KEY UPDATE', [b]);
        const writing = write([a, b, c]);
        await lockWaiters(1);
        const metering = new MeterEventsRepository(dataSource).recordBatches(
          [a, c].map((sessionId) => ({
            id: `mev_${sessionId}_1`,
            sessionId,
            seq: 1,
            frames: 10,
            inputTokens: 0,
            outputTokens: 0,
            costByModel: {},
          })),
        );
        await lockWaiters(2);
        await blocker.query('COMMIT');

        const settled = await Promise.allSettled([writing, metering]);
        expect(settled.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }).code : 'ok'))).toEqual([
          'ok',
          'ok',
        ]);
        expect(await writing).toEqual(answer([a, b, c]));
        expect(await metering).toEqual(['recorded', 'recorded']);
        expect([...(await totals([a, b, c])).frames].sort()).toEqual([
          [a, 10],
          [b, 0],
          [c, 10],
        ]);
      } finally {
        await blocker.end();
      }
    },
  );

  it('meter batches, heartbeats and admissions on overlapping rows never deadlock, and every frame counts', async () => {
    // Random ids: the rows' physical order is not their id order.
    const ids = Array.from({ length: 400 }, newSessionId);
    await openSessions(ids);
    const meter = new MeterEventsRepository(dataSource);
    const held = new HeldSessionsRepository(dataSource);
    const admission = new SessionAdmissionRepository(dataSource);
    const expected = new Map(ids.map((id) => [id, 0]));
    const errors: unknown[] = [];
    let seq = 0;
    const until = Date.now() + 4000;
    const loop = async (step: () => Promise<unknown>) => {
      while (Date.now() < until) {
        try {
          await step();
        } catch (error) {
          errors.push(error);
        }
      }
    };

    const meterStatement = async () => {
      // Straight to the statement (no batcher): a failed statement must show, not be retried.
      const batches: NewMeterBatch[] = Array.from({ length: 100 }, () => {
        const sessionId = ids[Math.floor(Math.random() * ids.length)];
        return {
          id: `mev_${sessionId}_${++seq}`,
          sessionId,
          seq,
          frames: 10,
          inputTokens: 0,
          outputTokens: 0,
          costByModel: { [VOICECHAT]: COST },
        };
      });
      const outcomes = await meter.recordBatches(batches);
      batches.forEach((b, i) => {
        if (outcomes[i] === 'recorded') expected.set(b.sessionId, expected.get(b.sessionId)! + b.frames);
      });
    };
    const admit = () =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          admission.admit(
            { kind: 'checked', projectId, apiKeyId: null },
            {
              id: newSessionId(),
              type: 'live',
              model: VOICECHAT,
              pool: 'default',
              region: 'local',
              metadata: {},
              audio: AUDIO,
            },
            { status: 'active', instanceId: 'two' },
            { concurrentSessions: 100_000, maxSessionSeconds: 3600 },
          ),
        ),
      );

    await Promise.all([
      loop(meterStatement),
      loop(meterStatement),
      loop(meterStatement),
      loop(() => held.heartbeat('one', ids)),
      loop(admit),
    ]);

    expect(errors.map((e) => (e as { code?: string }).code ?? String(e))).toEqual([]);
    const written = await totals(ids);
    expect(written.frames).toEqual(expected);
    const frames = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(frames).toBeGreaterThan(0);
    expect(written.balance).toBe(-(frames / 10) * COST);
  }, 60_000);
});
