import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DataSource, EntitySchema } from 'typeorm';

type EntityClass = new (...args: any[]) => unknown;
import { dataSourceOptions } from '../../src/platform/database/data-source-options';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

const SRC = join(__dirname, '..', '..', 'src');

/** Every entity class of the service: each `*.entity.ts` file's exports (a new entity is covered by being written). */
function serviceEntities(): { file: string; entities: EntityClass[] }[] {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.entity.ts'));
  return files.map((file) => ({
    file,
    entities: Object.values(require(join(SRC, file)) as Record<string, unknown>).filter(
      (value): value is EntityClass => typeof value === 'function' || value instanceof EntitySchema,
    ),
  }));
}

/**
 * The entities and the migrations describe the same schema: TypeORM's schema diff (what
 * `migration:generate` would write) against a freshly migrated database is empty. A column, index or
 * constraint declared on one side only fails here with the statements that would reconcile them.
 */
describe.each(databaseTargets())('entities against the migrated schema on %s', (target) => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase(target);
    const entities = serviceEntities().flatMap((f) => f.entities);
    dataSource = await new DataSource(dataSourceOptions(db.url, 2, entities)).initialize();
    await dataSource.runMigrations({ transaction: 'each' });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('finds every entity file of the service', () => {
    const found = serviceEntities().map((f) => [relative(SRC, join(SRC, f.file)), f.entities.length]);
    expect(found.length).toBeGreaterThanOrEqual(6);
    for (const [file, count] of found) expect([file, count]).toEqual([file, 1]);
    expect(dataSource.entityMetadatas.map((m) => m.tableName).sort()).toEqual([
      'api_keys',
      'client_secrets',
      'meter_events',
      'project_ledger',
      'projects',
      'sessions',
    ]);
  });

  it('has no schema difference between the entities and the migrations', async () => {
    const diff = await dataSource.driver.createSchemaBuilder().log();
    expect(diff.upQueries.map((q) => q.query)).toEqual([]);
  });
});
