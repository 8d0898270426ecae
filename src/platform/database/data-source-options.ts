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
  limits: ConnectionLimits = CONNECTION_LIMITS,
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
    extra: { max: poolSize, ...limits },
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
};

export type ConnectionLimits = typeof CONNECTION_LIMITS;

/**
 * The embedded server (a child process on this machine) runs one statement at a time, so a statement
 * or a connection queued behind a long one (a bulk insert, a large export, a slow disk) waits its turn;
 * the limits above would read that wait as a partition, and the availability check would cut every
 * connection, the long statement's included. It cannot be partitioned, and if it dies its sockets close
 * at once: its limits only catch a hung server.
 */
export const EMBEDDED_CONNECTION_LIMITS: ConnectionLimits = {
  ...CONNECTION_LIMITS,
  connectionTimeoutMillis: 60_000,
  query_timeout: 120_000,
};

/** The connection pool size of a data source: as dataSourceOptions() set it, else pg's default. */
export function poolSizeOf(options: DataSourceOptions): number {
  return (options.extra as { max?: number } | undefined)?.max ?? 10;
}
