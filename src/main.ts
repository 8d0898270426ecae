import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { createApp } from './app.setup';
import { createRootLogger, PinoNestLogger } from './platform/logging/logger';
import { tuneHeapForStreaming } from './platform/runtime/heap-tuning';
import { AppConfig } from './config/app-config';
import { ConfigError } from './config/environment';
import { enginesDocument, MODEL_IDS } from './engines';
import { DatabaseModule } from './platform/database/database.module';
import { FirstStartService } from './modules/projects';
import { MetricsService } from './modules/metrics';
import { guardProcess } from './platform/runtime/escaped-errors';

async function main(): Promise<void> {
  tuneHeapForStreaming();
  let config: AppConfig;
  try {
    config = AppConfig.fromProcessEnv();
    enginesDocument(config, MODEL_IDS);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\nContinuum did not start: fix the variables above.\n`);
    process.exit(78); // EX_CONFIG
  }
  const started = Date.now();
  // Everything logs as JSON through pino, including what happens before the app exists.
  const logger = createRootLogger(config.logLevel);
  Logger.overrideLogger(new PinoNestLogger(logger));
  const database = await DatabaseModule.locate(config);
  const app = await createApp({ config, database, logger, shutdownHooks: false });
  const metrics = app.get(MetricsService);
  guardProcess(logger, (kind) => metrics.escapedErrors.inc({ kind }));
  // SIGTERM (a pod being stopped) drains: readiness fails at once, live sessions get the grace period,
  // then the process exits 0. Nest's own hooks would re-raise the signal and end with 143 instead.
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  // The embedded database's process died under us: exit non-zero and say so, rather than serve on
  // without a database; a supervisor restarts the service on the same data directory.
  void database.embedded?.exited.then((exit) => {
    if (stopping) return;
    const how = exit.signal ?? `code ${exit.code}`;
    process.stderr.write(
      `embedded PostgreSQL exited unexpectedly (${how}); Continuum stops: restart it (the data directory is intact up to the last commit)\n`,
    );
    process.exit(70); // EX_SOFTWARE
  });
  await app.listen(config.port, config.host);
  const scheme = config.tls ? 'https' : 'http';
  // The bound port, which differs from PORT=0 (tests and tools start replicas on free ports).
  const { port } = app.getHttpServer().address() as AddressInfo;
  const local = `${scheme}://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  await app.get(FirstStartService).run(config.publicUrl ?? local);
  process.stdout.write(`Continuum listening on ${local} (docs: ${local}/docs), ready in ${Date.now() - started} ms\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Continuum failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
