/**
 * The availability probe's time limit is what finds a partition: a database that answers nothing.
 * A loaded machine must not pass for one. A process that stalls (a long GC, a starved CPU) runs its
 * timers before it reads its sockets, so the limit fires while the answer sits unread; and a server
 * that is slow to answer the probe but still answers the pool is slow, not away. Either, taken for an
 * outage, cuts every connection (seen as one outage logged twice behind PgBouncer, and as an NDJSON
 * stream aborted mid-page, under a loaded CI).
 */
import { Client, Connection, Pool } from 'pg';
import { DatabaseAvailability } from '../../src/platform/database/database-availability';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

const PROBE_TIMEOUT_MS = 300;
const PROBE = 'SELECT 1';

function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // the loop is blocked, as under a long pause
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(databaseTargets())('the availability probe on a loaded machine (%s)', (target) => {
  let db: TestDatabase;
  let pool: Pool;
  let availability: DatabaseAvailability;
  let warnings: string[];
  const query = Client.prototype.query as (...args: unknown[]) => unknown;

  beforeAll(async () => {
    db = await createTestDatabase(target);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });
  beforeEach(() => {
    warnings = [];
    pool = new Pool({ connectionString: db.url, max: 1 });
    availability = new DatabaseAvailability({
      client: { connectionString: db.url },
      probeIntervalMs: 50,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      log: { warn: (m) => warnings.push(m), log: () => undefined },
    });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await availability.stop();
    await pool.end();
  });

  it('reads the answer that arrived during a stall before it calls the database away', async () => {
    // The stall comes right after a probe is written, so its answer arrives while the loop is
    // blocked for three time limits.
    let stalls = 0;
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const result = query.apply(this, args);
      if (args[0] === PROBE && stalls < 3) {
        stalls++;
        stall(PROBE_TIMEOUT_MS * 3);
      }
      return result as never;
    });
    availability.attach(pool);
    while (stalls < 3) await sleep(20);
    await sleep(PROBE_TIMEOUT_MS);
    expect(warnings).toEqual([]);
    expect(availability.isUp).toBe(true);
  }, 30_000);

  it("reads the start-up's answer that arrived during a stall, and gives the probe's statement its own limit", async () => {
    // The stall comes right after the probe's connection sends its start-up message.
    let stalled = false;
    // pg sends it from Connection.startup, which its types do not declare.
    const prototype = Connection.prototype as unknown as { startup(config: { application_name?: string }): void };
    const startup = prototype.startup;
    jest.spyOn(prototype, 'startup').mockImplementation(function (this: Connection, config) {
      startup.call(this, config);
      if (config.application_name === 'continuum-probe' && !stalled) {
        stalled = true;
        stall(PROBE_TIMEOUT_MS * 3);
      }
    });
    availability.attach(pool);
    while (!stalled) await sleep(20);
    await sleep(PROBE_TIMEOUT_MS * 2);
    expect(warnings).toEqual([]);
    expect(availability.isUp).toBe(true);
  }, 30_000);

  it('waits for a slow probe while the pool is answered, and calls the same wait an outage without', async () => {
    // Every probe is answered after four time limits; the pool's statements at once.
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      if (args[0] !== PROBE) return query.apply(this, args) as never;
      return sleep(PROBE_TIMEOUT_MS * 4).then(() => query.apply(this, args)) as never;
    });
    availability.attach(pool);
    const until = Date.now() + PROBE_TIMEOUT_MS * 6;
    while (Date.now() < until) await pool.query('SELECT 2'); // the service's own statements answer
    expect(warnings).toEqual([]);
    expect(availability.isUp).toBe(true);
    // (control) The pool goes quiet: the same slow probe now reads as a database that answers nothing.
    await sleep(PROBE_TIMEOUT_MS * 6);
    expect(availability.isUp).toBe(false);
    expect(warnings.join('\n')).toMatch(/database unavailable \(the database did not answer within 300 ms\)/);
  }, 30_000);
});
