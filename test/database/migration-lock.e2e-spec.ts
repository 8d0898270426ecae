import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { MIGRATION_LOCK_KEY, runMigrationsOnce } from '../../src/platform/database/migration-lock';
import { MIGRATIONS } from '../../src/platform/database/migrations/index';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

/** Pods of a rollout start together: their migrations must run once, not race into each other. */
const describeOnPostgres = databaseTargets().includes('postgres') ? describe : describe.skip;

describeOnPostgres('migrations under the advisory lock (PostgreSQL)', () => {
  let db: TestDatabase;
  const sources: DataSource[] = [];
  const open = async (): Promise<DataSource> => {
    const source = await new DataSource(dataSourceOptions(db.url, 1)).initialize();
    sources.push(source);
    return source;
  };

  beforeEach(async () => {
    db = await createTestDatabase('postgres');
  });
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.destroy()));
    await db.drop();
  });

  it('three processes starting together apply every migration exactly once', async () => {
    const [a, b, c] = await Promise.all([open(), open(), open()]);
    const applied = await Promise.all([a, b, c].map((s) => runMigrationsOnce(s, db.url)));
    expect(applied.map((list) => list.length).sort()).toEqual([0, 0, MIGRATIONS.length]);
    const [{ n }] = await a.query<{ n: string }[]>('SELECT count(*) AS n FROM typeorm_migrations');
    expect(Number(n)).toBe(MIGRATIONS.length);
  }, 60_000);

  it('waits while another process holds the lock', async () => {
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    const source = await open();
    let done = false;
    const running = runMigrationsOnce(source, db.url).then((list) => ((done = true), list));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [{ n: before }] = await holder
      .query<{ n: string }>("SELECT count(*) AS n FROM pg_tables WHERE tablename = 'sessions'")
      .then((r) => r.rows);
    expect({ done, before: Number(before) }).toEqual({ done: false, before: 0 });
    await holder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
    await holder.end();
    expect(await running).toHaveLength(MIGRATIONS.length);
  }, 60_000);
});
