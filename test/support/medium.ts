/**
 * The medium tier: one feature module through Nest's DI, with its real providers and repositories on a
 * real, freshly migrated database (either target), and overrides only for what crosses the module's
 * edge. Cheaper than an app (no HTTP server, no gateway, no engines) and closer than a unit spec.
 */
import { type DynamicModule, Global, Module, type ModuleMetadata, type Provider, type Type } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { Test, TestingModule, TestingModuleBuilder } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { DatabaseLocation, DatabaseModule } from '../../src/platform/database/database.module';
import { createTestDatabase, DatabaseTarget, embeddedServerAt, TestDatabase } from './test-database';

export interface MediumModule {
  module: TestingModule;
  config: AppConfig;
  dataSource: DataSource;
  get<T>(type: Type<T> | string | symbol): T;
  close(): Promise<void>;
}

export interface MediumOptions {
  /** The module(s) under test, as the app imports them. */
  imports: NonNullable<ModuleMetadata['imports']>;
  providers?: ModuleMetadata['providers'];
  /** What the app provides globally and the module takes from outside (another unit's token), as stand-ins. */
  globals?: Provider[];
  env?: Record<string, string>;
  /** A database to reuse (a restart, or replicas): its owner drops it; by default each module gets a fresh one. */
  database?: TestDatabase;
  /** Replaces what crosses the module's edge (`builder.overrideProvider(X).useValue(...)`). */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

@Global()
@Module({})
class StandInsModule {}

function standIns(providers: Provider[]): DynamicModule {
  const tokens = providers.map((p) => (typeof p === 'function' ? p : p.provide));
  return { module: StandInsModule, providers, exports: tokens };
}

/**
 * Compiles `imports` with the service's config and database modules on a fresh migrated database; with
 * `target` null, for a module that holds no SQL, without a database.
 */
export async function mediumModule(target: DatabaseTarget | null, options: MediumOptions): Promise<MediumModule> {
  const given = options.database;
  const db: TestDatabase | null = given
    ? { ...given, drop: async () => {} }
    : target
      ? await createTestDatabase(target)
      : null;
  const config = new AppConfig({ SPEECH_ENGINE: 'scripted', LOG_LEVEL: 'warn', ...options.env });
  const database: DynamicModule[] = db
    ? [DatabaseModule.forRoot(new DatabaseLocation(db.url, embeddedServerAt(db.url), false), 2)]
    : [];
  let module: TestingModule;
  try {
    const builder = Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        ...database,
        ScheduleModule.forRoot(), // the app's root provides it (app.module.ts)
        standIns(options.globals ?? []),
        ...options.imports,
      ],
      providers: options.providers ?? [],
    });
    module = await (options.override ? options.override(builder) : builder).compile();
    // Lifecycle hooks as the app runs them (onModuleInit, onApplicationBootstrap).
    await module.init();
  } catch (error) {
    await db?.drop();
    throw error;
  }
  return {
    module,
    config,
    // Suites without a database never ask for it.
    dataSource: db ? module.get(DataSource) : (undefined as unknown as DataSource),
    get: (type) => module.get(type, { strict: false }),
    async close() {
      try {
        await module.close();
      } finally {
        await db?.drop();
      }
    },
  };
}
