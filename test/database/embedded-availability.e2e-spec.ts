/**
 * The embedded database runs one statement at a time, so the availability probe waits behind a long
 * statement. That wait is work, not an outage: the probe must not mark the database down and cut the
 * connection the statement runs on (seen as "Connection terminated unexpectedly" on a 200,000-row
 * insert under load). The same probe on a server taken to run statements side by side does time out
 * there, which is what finds a partition.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { EMBEDDED_CONNECTION_LIMITS } from '../../src/platform/database/data-source-options';
import { DatabaseAvailability } from '../../src/platform/database/database-availability';
import { EmbeddedPostgres } from '../../src/platform/database/embedded-postgres';

const LONG_STATEMENT = 'SELECT pg_sleep(1.5)';

describe('the availability probe on the embedded database', () => {
  let root: string;
  let server: EmbeddedPostgres;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'continuum-embedded-availability-'));
    server = await EmbeddedPostgres.start({ dataDir: join(root, 'data') });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** The long statement, and with `queuedBehind` a short one sent on another connection while it runs. */
  const watch = async (serialised: boolean, options: { queryTimeoutMs?: number; queuedBehind?: boolean } = {}) => {
    const warnings: string[] = [];
    const pool = new Pool({ connectionString: server.url, max: 2, query_timeout: options.queryTimeoutMs });
    const availability = new DatabaseAvailability({
      client: { connectionString: server.url },
      probeIntervalMs: 50,
      probeTimeoutMs: 300,
      serialised,
      log: { warn: (m) => warnings.push(m), log: () => undefined },
    }).attach(pool);
    try {
      const long = pool.query(LONG_STATEMENT);
      const short = options.queuedBehind ? pool.query('SELECT 1').catch(() => undefined) : null;
      const outcome = await long.then(
        () => 'answered',
        (error: Error) => error.message,
      );
      await short;
      return { outcome, up: availability.isUp, warnings };
    } finally {
      await availability.stop();
      await pool.end().catch(() => undefined);
    }
  };

  it('waits behind a long statement: no outage, the statement answers', async () => {
    const { outcome, up, warnings } = await watch(true);
    expect(outcome).toBe('answered');
    expect(up).toBe(true);
    expect(warnings).toEqual([]);
  }, 30_000);

  it('(control) a probe with a plain time limit calls the same wait an outage and cuts the statement', async () => {
    const { outcome, up, warnings } = await watch(false);
    expect(outcome).not.toBe('answered');
    expect(up).toBe(false);
    expect(warnings.join('\n')).toMatch(/database unavailable \(the database did not answer within 300 ms\)/);
  }, 30_000);

  it("keeps the statement when another one queued behind it outlasts the driver's statement limit", async () => {
    // A statement cut before (the control above) still runs on the server: let it finish first.
    const settle = new Pool({ connectionString: server.url, max: 1 });
    await settle.query('SELECT 1');
    await settle.end();
    // The pool's own limits on the embedded server (EMBEDDED_CONNECTION_LIMITS): long enough for a
    // statement to wait its turn.
    const embedded = await watch(true, {
      queuedBehind: true,
      queryTimeoutMs: EMBEDDED_CONNECTION_LIMITS.query_timeout,
    });
    expect(embedded.outcome).toBe('answered');
    expect(embedded.warnings).toEqual([]);
    // (control) With the external server's kind of limit, shorter than the wait (10 s against a
    // 200,000-row insert on a slow machine; 300 ms here), the queued statement's "Query read timeout"
    // reads as an outage, and the long statement is cut with every other connection.
    const short = await watch(true, { queuedBehind: true, queryTimeoutMs: 300 });
    expect(short.outcome).not.toBe('answered');
    expect(short.warnings.join('\n')).toMatch(/database unavailable \(Query read timeout\)/);
  }, 30_000);
});
