/**
 * A process that stalls (a long GC, a CPU starved under load) runs its timers before it reads its
 * sockets: the probe's time limit then fires while the database's answer sits unread, and a healthy
 * database is called away (seen as one outage logged twice behind PgBouncer under a loaded CI). The
 * probe must read what has arrived before it judges.
 */
import { Client, Pool } from 'pg';
import { DatabaseAvailability } from '../../src/platform/database/database-availability';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

const PROBE_TIMEOUT_MS = 300;

function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // the loop is blocked, as under a long pause
  }
}

describe.each(databaseTargets())('the availability probe after a stall (%s)', (target) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(target);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('reads the answer that arrived during the stall before it calls the database away', async () => {
    const warnings: string[] = [];
    const pool = new Pool({ connectionString: db.url, max: 1 });
    const availability = new DatabaseAvailability({
      client: { connectionString: db.url },
      probeIntervalMs: 50,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      log: { warn: (m) => warnings.push(m), log: () => undefined },
    });
    // The stall comes right after a probe's SELECT 1 is written, so its answer arrives while the loop
    // is blocked for three time limits.
    const query = Client.prototype.query;
    let stalls = 0;
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const result = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (args[0] === 'SELECT 1' && stalls < 3) {
        stalls++;
        stall(PROBE_TIMEOUT_MS * 3);
      }
      return result as never;
    });
    try {
      availability.attach(pool);
      while (stalls < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, PROBE_TIMEOUT_MS));
      expect(warnings).toEqual([]);
      expect(availability.isUp).toBe(true);
    } finally {
      jest.restoreAllMocks();
      await availability.stop();
      await pool.end();
    }
  }, 30_000);
});
