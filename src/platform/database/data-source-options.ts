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
    extra: { max: poolSize, ...CONNECTION_LIMITS },
  };
}

/**
 * How long the service waits on PostgreSQL, enforced by the driver (no session SET: PgBouncer in
 * transaction mode refuses unknown startup parameters and the embedded server ignores
 * statement_timeout). A stopped server refuses connections at once; a partitioned one is found by the
 * availability probe (DatabaseAvailability, about 1.5 s) and by these limits: a connection attempt
 * gives up after 1.5 s, a statement after 10 s, and TCP keep-alive probes an idle connection after 5 s.
 */
export const CONNECTION_LIMITS = {
  connectionTimeoutMillis: 1500,
  query_timeout: 10_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 5000,
} as const;

/** The connection pool size of a data source: as dataSourceOptions() set it, else pg's default. */
export function poolSizeOf(options: DataSourceOptions): number {
  return (options.extra as { max?: number } | undefined)?.max ?? 10;
}
