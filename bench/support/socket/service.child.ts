/**
 * The service under test, alone in its process: the real app (createApp, Fastify, the live
 * gateway, the session core, metering to PostgreSQL) with the scripted engine, limits raised
 * far above the load. argv: <database url>. Logs go to stdout (the parent points it at a file).
 */
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../src/app.setup';
import { createRootLogger } from '../../../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../../../src/platform/runtime/heap-tuning';
import { AppConfig } from '../../../src/config/app-config';
import { DatabaseLocation } from '../../../src/platform/database/database.module';
import { ProjectsService } from '../../../src/modules/projects/projects.service';
import { answerStats, watchTimers, type ServerReady } from './child-protocol';

async function main(): Promise<void> {
  watchTimers();
  tuneHeapForStreaming(); // as src/main.ts does: the service is measured as it runs in production
  const url = process.argv[2];
  const config = new AppConfig({
    DATABASE_URL: url,
    HOST: '127.0.0.1',
    SPEECH_ENGINE: 'scripted',
    ENGINE_MAX_STREAMS: '10000',
    CONCURRENT_SESSIONS_LIMIT: '100000',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
    STARTING_CREDIT_USD: '100000',
    // Production's level: per-session lines cost what they cost in production.
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_SECONDS: '0',
  });
  const app = await createApp({
    config,
    database: new DatabaseLocation(url, null),
    logger: createRootLogger(config.logLevel),
  });
  await app.listen(0, '127.0.0.1');
  const { secret } = await app.get(ProjectsService).createProject('bench-socket');
  answerStats();
  process.once('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
  const ready: ServerReady = {
    type: 'ready',
    port: (app.getHttpServer().address() as AddressInfo).port,
    path: '/v1/live/sessions',
    authorization: `Bearer ${secret}`,
  };
  process.send!(ready);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `socket bench service failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
