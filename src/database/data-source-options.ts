import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/**
 * The one definition of how the service reaches PostgreSQL, used by the app, the migration CLI and
 * the tests. Schema changes only through migrations; never synchronize.
 */
export function dataSourceOptions(url: string, poolSize: number): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
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
