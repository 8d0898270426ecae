import { DynamicModule, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { CONNECTION_LIMITS, dataSourceOptions, EMBEDDED_CONNECTION_LIMITS } from './data-source-options';
import { DatabaseAvailability } from './database-availability';
import { EmbeddedPostgres } from './embedded-postgres';
import { runMigrationsOnce } from './migration-lock';
import { pgPool } from './pg-pool';

/** Where the database is: DATABASE_URL, or an embedded PostgreSQL started in DATA_DIR. */
export class DatabaseLocation {
  constructor(
    readonly url: string,
    /** The embedded server behind `url`: one backend, so statements wait their turn (limits, probe, pool). */
    readonly embedded: EmbeddedPostgres | null,
    /** Whether the app stops that server when it shuts down: not when another owner started it. */
    readonly ownsServer = embedded !== null,
  ) {}
}

/** pglite-socket serialises every connection onto one backend: a bigger pool buys nothing. */
const EMBEDDED_POOL_SIZE = 4;

@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  private static readonly logger = new Logger('Database');

  constructor(
    private readonly location: DatabaseLocation,
    private readonly dataSource: DataSource,
    private readonly availability: DatabaseAvailability,
  ) {}

  /** `poolSize`: the pool for an external database (the embedded one has its own). */
  static forRoot(location: DatabaseLocation, poolSize: number): DynamicModule {
    const locationProvider = { provide: DatabaseLocation, useValue: location };
    const limits = location.embedded ? EMBEDDED_CONNECTION_LIMITS : CONNECTION_LIMITS;
    const availability = new DatabaseAvailability({
      client: { connectionString: location.url, ...limits },
      // The embedded server serves one transaction at a time: a long one must not read as an outage.
      probeTimeoutMs: location.embedded ? 5000 : 1200,
      serialised: location.embedded !== null,
      log: { warn: (m) => DatabaseModule.logger.warn(m), log: (m) => DatabaseModule.logger.log(m) },
    });
    const availabilityProvider = { provide: DatabaseAvailability, useValue: availability };
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          extraProviders: [locationProvider],
          inject: [DatabaseLocation],
          useFactory: (loc: DatabaseLocation) => ({
            ...dataSourceOptions(loc.url, loc.embedded ? EMBEDDED_POOL_SIZE : poolSize, [], limits),
            autoLoadEntities: true,
          }),
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            // Pending migrations run at start (each in its own transaction) under the migration lock.
            await runMigrationsOnce(dataSource, location.embedded ? null : location.url);
            availability.attach(pgPool(dataSource));
            return dataSource;
          },
        }),
      ],
      providers: [locationProvider, availabilityProvider],
      exports: [locationProvider, availabilityProvider],
    };
  }

  static async locate(config: { databaseUrl: string | null; dataDir: string }): Promise<DatabaseLocation> {
    if (config.databaseUrl) return new DatabaseLocation(config.databaseUrl, null);
    const started = Date.now();
    const log = DatabaseModule.logger;
    const embedded = await EmbeddedPostgres.start({
      dataDir: join(config.dataDir, 'postgres'),
      logger: (level, message) =>
        level === 'debug' ? log.debug(message) : log[level === 'info' ? 'log' : level](message),
    });
    DatabaseModule.logger.log(`embedded PostgreSQL ready in ${Date.now() - started} ms (${config.dataDir})`);
    return new DatabaseLocation(embedded.url, embedded);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.availability.stop();
    // A partitioned server would hold pool.end() forever: its connections are cut instead.
    if (!this.availability.isUp) this.availability.cutConnections();
    if (!this.location.embedded) return;
    // The data source must let go of its connections before the embedded server stops.
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    if (this.location.ownsServer) await this.location.embedded.stop();
  }
}
