import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.setup';
import { createRootLogger } from '../../src/platform/logging/logger';
import { AppConfig } from '../../src/config/app-config';
import { DatabaseLocation } from '../../src/platform/database/database.module';
import { ProjectsService } from '../../src/modules/projects/projects.service';
import { createTestDatabase, DatabaseTarget, embeddedServerAt } from './test-database';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  dataSource: DataSource;
  /** Every log line the app wrote, for assertions about what is (not) logged. */
  logs: string[];
  newProject(name?: string): Promise<{ projectId: string; apiKey: string; keyId: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Reuse a database (e.g. two instances on one PostgreSQL); by default each app gets a fresh one. */
  databaseUrl?: string;
}

/** Starts the real service (real Fastify, real sockets, real database) on an ephemeral port. */
export async function startTestApp(target: DatabaseTarget, options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createTestDatabase(target);
  // Suites refuse bad credentials on purpose, far more often than the default of failed
  // authentications per address allows; the throttle's own suite sets the limit it tests.
  // Each app its own DATA_DIR: what it keeps there during a database outage is its own.
  const dataDir = mkdtempSync(join(tmpdir(), 'continuum-test-app-'));
  const config = new AppConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    SPEECH_ENGINE: 'scripted',
    AUTH_FAILURES_PER_MINUTE: '1000000',
    // Suites open many sockets of one project on one instance; the fair share's own suite sets the share.
    PROJECT_STREAMS_PER_INSTANCE: options.env?.ENGINE_MAX_STREAMS ?? '8',
    ...options.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  let app: NestFastifyApplication;
  try {
    app = await createApp({
      config,
      // As the service runs on its own embedded server (its limits, probe and pool), but the test owns it.
      database: new DatabaseLocation(db.url, embeddedServerAt(db.url), false),
      logger: createRootLogger('trace', sink),
    });
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  const scheme = config.tls ? 'https' : 'http';
  return {
    app,
    config,
    baseUrl: `${scheme}://127.0.0.1:${port}`,
    dataSource: app.get(DataSource),
    logs,
    async newProject(name = 'test') {
      const { project, key, secret } = await app.get(ProjectsService).createProject(name);
      return { projectId: project.id, apiKey: secret, keyId: key.id };
    },
    async close() {
      await app.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
