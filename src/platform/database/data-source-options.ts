import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';

/**
 * The one definition of how the service reaches PostgreSQL, used by the app, the migration CLI and
 * the tests. Schema changes only through migrations; never synchronize. The service's entities are
 * the ones its modules register (`autoLoadEntities`); the TypeORM CLI passes its own list.
 */
export function dataSourceOptions(
  url: string,
  poolSize: number,
  entities: NonNullable<DataSourceOptions['entities']> = [],
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: poolSize, connectionTimeoutMillis: 10_000 },
  };
}

/** The connection pool size of a data source: as dataSourceOptions() set it, else pg's default. */
export function poolSizeOf(options: DataSourceOptions): number {
  return (options.extra as { max?: number } | undefined)?.max ?? 10;
}
