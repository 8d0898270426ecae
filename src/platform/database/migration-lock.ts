import { Client } from 'pg';
import type { DataSource, Migration } from 'typeorm';

/**
 * The advisory lock key every Continuum process takes around its migrations (any fixed bigint; this is
 * the first eight bytes of sha256("continuum:migrations") as a signed bigint). Held on a connection of its own, so a
 * data source with a pool of one can still run the migrations while it is held.
 */
export const MIGRATION_LOCK_KEY = '2380748142392803965';

/**
 * Applies pending migrations once, however many processes start together (pods of a rollout, init
 * containers): each waits for PostgreSQL's session-level advisory lock, so the first applies them and
 * the rest find nothing left. The embedded database has one owner and no advisory locks
 * (docs/architecture.md), so there `lockUrl` is null and the migrations simply run.
 */
export async function runMigrationsOnce(dataSource: DataSource, lockUrl: string | null): Promise<Migration[]> {
  if (!lockUrl) return dataSource.runMigrations({ transaction: 'each' });
  const lock = new Client({ connectionString: lockUrl, application_name: 'continuum-migrations' });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      return await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lock.end();
  }
}
