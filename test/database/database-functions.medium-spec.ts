import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { CURRENT_FUNCTIONS, type DatabaseFunction } from '../../src/platform/database/functions';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

/**
 * A migrated database's functions are exactly `CURRENT_FUNCTIONS`: each one as its file's definition
 * creates it (compared as PostgreSQL prints it back, so layout aside nothing differs), and none other.
 * A migration that restates a function inline, or a new version without the migration that installs
 * it, fails here.
 */
describe.each(databaseTargets())('database functions on %s', (target) => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase(target);
    dataSource = await new DataSource(dataSourceOptions(db.url, 2)).initialize();
    await dataSource.runMigrations({ transaction: 'each' });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  const definitionOf = async (run: (sql: string) => Promise<unknown>, name: string): Promise<string[]> =>
    (
      (await run(`SELECT pg_get_functiondef(oid) AS def FROM pg_proc WHERE proname = '${name}'`)) as { def: string }[]
    ).map((r) => r.def);

  /** What the file's definition creates, read back in a transaction that is rolled back. */
  const asFileCreatesIt = async (fn: DatabaseFunction): Promise<string[]> => {
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`DROP FUNCTION ${fn.signature}`);
      await runner.query(fn.definition);
      return await definitionOf((sql) => runner.query(sql), fn.name);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  };

  it('has a function for each current version and no other', async () => {
    const rows: { proname: string }[] = await dataSource.query(
      `SELECT proname FROM pg_proc WHERE proname LIKE 'continuum\\_%' ORDER BY proname`,
    );
    expect(rows.map((r) => r.proname)).toEqual(CURRENT_FUNCTIONS.map((f) => f.name).sort());
  });

  it.each(CURRENT_FUNCTIONS.map((f) => [f.name, f] as const))('installs %s as its file defines it', async (_, fn) => {
    const installed = await definitionOf((sql) => dataSource.query(sql), fn.name);
    expect(installed).toHaveLength(1);
    expect(await asFileCreatesIt(fn)).toEqual(installed);
  });
});
