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

  const watch = async (serialised: boolean) => {
    const warnings: string[] = [];
    const pool = new Pool({ connectionString: server.url, max: 2 });
    const availability = new DatabaseAvailability({
      client: { connectionString: server.url },
      probeIntervalMs: 50,
      probeTimeoutMs: 300,
      serialised,
      log: { warn: (m) => warnings.push(m), log: () => undefined },
    }).attach(pool);
    try {
      const outcome = await pool.query(LONG_STATEMENT).then(
        () => 'answered',
        (error: Error) => error.message,
      );
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
});
