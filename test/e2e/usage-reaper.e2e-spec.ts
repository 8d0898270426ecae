import { MeterService } from '../../src/modules/usage/meter.service';
import { SessionReaper } from '../../src/modules/sessions/session-reaper';
import { createTestDatabase, databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { insertSession } from './usage-fixtures';

const QUIET = { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000', SESSION_REAPER_INTERVAL_SECONDS: '0' };

/** Sessions of an instance that died: closed as connection_lost by the others, with what was flushed. */
describe.each(databaseTargets())('the reaper of orphaned sessions on %s', (target) => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let one: TestApp;
  let two: TestApp;
  let projectId: string;
  const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);

  beforeAll(async () => {
    db = await createTestDatabase(target);
    // Two instances on one database; the embedded server takes 16 connections in all.
    const env = { ...QUIET, DATABASE_POOL_SIZE: '4' };
    one = await startTestApp(target, { databaseUrl: db.url, env });
    two = await startTestApp(target, { databaseUrl: db.url, env });
    ({ projectId } = await one.newProject());
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
    await db?.drop();
  });

  it('closes the silent sessions of a dead instance as connection_lost, once, keeping what was flushed', async () => {
    const orphan = await insertSession(one.dataSource, {
      projectId,
      status: 'active',
      startedAt: ago(100),
      heartbeatAt: ago(60),
      instanceId: 'dead',
    });
    const neverBeat = await insertSession(one.dataSource, {
      projectId,
      status: 'active',
      startedAt: ago(45),
      heartbeatAt: null,
    });
    const healthy = await insertSession(one.dataSource, {
      projectId,
      status: 'active',
      startedAt: ago(100),
      heartbeatAt: ago(3),
      instanceId: 'alive',
    });
    const young = await insertSession(one.dataSource, {
      projectId,
      status: 'active',
      startedAt: ago(5),
      heartbeatAt: null,
    });
    await one.app.get(MeterService).recordBatch(orphan, 1, 62);
    await one.app.get(MeterService).recordBatch(orphan, 2, 30);
    await one.dataSource.query(`UPDATE meter_events SET recorded_at = now() - interval '50 seconds' WHERE id = $1`, [
      `mev_${orphan}_2`,
    ]);
    await one.dataSource.query(`UPDATE meter_events SET recorded_at = now() - interval '80 seconds' WHERE id = $1`, [
      `mev_${orphan}_1`,
    ]);

    // Both instances reap at once: each session is closed by exactly one of them.
    const [a, b] = await Promise.all([one.app.get(SessionReaper).reapOnce(), two.app.get(SessionReaper).reapOnce()]);
    expect([...a, ...b].sort()).toEqual([orphan, neverBeat].sort());
    expect(await one.app.get(SessionReaper).reapOnce()).toEqual([]);

    const rows: {
      id: string;
      status: string;
      close_reason: string | null;
      frames: number;
      cost_micros: string;
      ended_ago: number | null;
    }[] = await one.dataSource.query(
      `SELECT id, status, close_reason, frames, cost_micros, extract(epoch FROM now() - ended_at)::float8 AS ended_ago
         FROM sessions WHERE id = ANY($1)`,
      [[orphan, neverBeat, healthy, young]],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(orphan)).toMatchObject({
      status: 'closed',
      close_reason: 'connection_lost',
      frames: 92,
      cost_micros: String(92 * 80),
    });
    // Ended at its last sign of life: the later of the heartbeat (60 s ago) and the last batch (50 s ago).
    expect(byId.get(orphan)!.ended_ago).toBeGreaterThan(45);
    expect(byId.get(orphan)!.ended_ago).toBeLessThan(57);
    expect(byId.get(neverBeat)).toMatchObject({ status: 'closed', close_reason: 'connection_lost', frames: 0 });
    expect(byId.get(healthy)).toMatchObject({ status: 'active', close_reason: null });
    expect(byId.get(young)).toMatchObject({ status: 'active', close_reason: null });
  });

  it('runs by itself on the configured interval', async () => {
    const three = await startTestApp(target, {
      databaseUrl: db.url,
      env: {
        ...QUIET,
        DATABASE_POOL_SIZE: '2',
        SESSION_REAPER_INTERVAL_SECONDS: '1',
        SESSION_HEARTBEAT_TIMEOUT_SECONDS: '2',
      },
    });
    try {
      const id = await insertSession(three.dataSource, {
        projectId,
        status: 'active',
        heartbeatAt: ago(10),
        instanceId: 'dead',
      });
      const deadline = Date.now() + 10_000;
      let status = 'active';
      while (status === 'active' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        [{ status }] = await three.dataSource.query('SELECT status FROM sessions WHERE id = $1', [id]);
      }
      expect(status).toBe('closed');
    } finally {
      await three.close();
    }
  });
});
