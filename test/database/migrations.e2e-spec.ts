import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { MIGRATIONS } from '../../src/platform/database/migrations/index';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

/**
 * Every migration's down() undoes its up(): the schema can be walked back to empty and forward again.
 * A down() that left the wrong version of a function behind fails the next one's DROP FUNCTION.
 */
describe.each(databaseTargets())('migrations on %s', (target) => {
  let db: TestDatabase;
  let dataSource: DataSource;
  const functions = async (): Promise<string[]> =>
    (
      await dataSource.query<{ proname: string }[]>(
        `SELECT proname FROM pg_proc WHERE proname LIKE 'continuum_%' ORDER BY proname`,
      )
    ).map((f) => f.proname);
  const tables = async (): Promise<number> =>
    Number(
      (
        await dataSource.query<{ n: string }[]>(
          `SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'typeorm_migrations'`,
        )
      )[0].n,
    );

  beforeAll(async () => {
    db = await createTestDatabase(target);
    dataSource = await new DataSource(dataSourceOptions(db.url, 2)).initialize();
  }, 60_000);
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('reverts every migration in turn and applies them all again', async () => {
    await dataSource.runMigrations({ transaction: 'each' });
    const applied = { functions: await functions(), tables: await tables() };
    expect(applied.functions).toEqual([
      'continuum_admit_sessions',
      'continuum_record_auth_failure',
      'continuum_record_meter_batches',
      'continuum_take_request_token',
    ]);

    for (let i = MIGRATIONS.length; i > 0; i--) await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await functions()).toEqual([]);
    expect(await tables()).toBe(0);

    expect(await dataSource.runMigrations({ transaction: 'each' })).toHaveLength(MIGRATIONS.length);
    expect({ functions: await functions(), tables: await tables() }).toEqual(applied);
  }, 60_000);
});
