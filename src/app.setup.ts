import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { AppModule } from './app.module';
import { answerClientError, answerFrameworkError } from './platform/http/framework-errors';
import { installBodyParsers, MAX_BODY_BYTES } from './platform/http/request-body';
import { echoRequestId, requestIdOf } from './platform/http/request-id';
import { inlineScriptHashes, securityHeaders } from './platform/http/security-headers';
import { serverLimitOptions } from './platform/http/server-limits';
import { createRootLogger, PinoNestLogger } from './platform/logging/logger';
import { ProbeQuietLogController } from './platform/logging/probe-log-controller';
import { buildOpenApiDocument } from './platform/openapi/openapi-document';
import swaggerMetadata from './swagger-metadata';
import { AppConfig } from './config/app-config';
import { DatabaseLocation } from './platform/database/database.module';
import { RawFramesWsAdapter } from './gateway/connection/raw-frames-ws-adapter';
import { findPlaygroundAssets, OpenApiDocumentHolder, servePlayground } from './modules/docs';
import helmet from '@fastify/helmet';

export interface CreateAppOptions {
  config: AppConfig;
  database: DatabaseLocation;
  /** Defaults to a JSON logger on stdout at the configured level. */
  logger?: Logger;
  /** Nest's own signal handling (default true); main.ts handles signals itself to exit 0 after a drain. */
  shutdownHooks?: boolean;
}

const UNVERSIONED = ['healthz', 'readyz', 'metrics'];

/** Builds the app exactly as production runs it; main.ts, the tests and the OpenAPI script all call this. */
export async function createApp({
  config,
  database,
  logger,
  shutdownHooks = true,
}: CreateAppOptions): Promise<NestFastifyApplication> {
  const root = logger ?? createRootLogger(config.logLevel);
  const { nodeServer, ...limits } = serverLimitOptions(config.http);
  const adapter = new FastifyAdapter({
    ...limits,
    http: nodeServer,
    loggerInstance: root,
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    logController: new ProbeQuietLogController(),
    genReqId: requestIdOf,
    bodyLimit: MAX_BODY_BYTES,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    https: config.tls
      ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile), ...nodeServer }
      : undefined,
  } as ConstructorParameters<typeof FastifyAdapter>[0]);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, database), adapter, {
    logger: new PinoNestLogger(root),
    abortOnError: false,
    bodyParser: false, // JSON bodies are parsed by our own parser (installHttpHooks)
  });
  app.setGlobalPrefix('v1', { exclude: UNVERSIONED });
  // Sockets read their frames themselves (binary-safe); Nest would parse, and pipe through rxjs, every audio frame.
  app.useWebSocketAdapter(new RawFramesWsAdapter(app));
  if (shutdownHooks) app.enableShutdownHooks();
  const playground = findPlaygroundAssets();
  // Before any route exists, so that every route, the docs and the playground's files included, gets them.
  const headers = securityHeaders({
    tls: config.tls !== null,
    publicUrl: config.publicUrl,
    inlineScriptHashes: inlineScriptHashes(playground),
  });
  // Helmet's option types reject explicit `false`s that it accepts at run time (HSTS off without TLS).
  await app.register(helmet, headers as never);
  installHttpHooks(app);
  await app.init();

  // What the swagger compiler plugin would have compiled into the DTOs (scripts/swagger-metadata.mjs).
  await SwaggerModule.loadPluginMetadata(swaggerMetadata);
  const document = buildOpenApiDocument(app);
  app.get(OpenApiDocumentHolder).document = document;
  SwaggerModule.setup('docs', app, document, { raw: false, swaggerOptions: { url: '/v1/openapi.json' } });
  if (!servePlayground(app, playground))
    root.warn('playground assets not built (npm run build): /playground is not served');
  return app;
}

/** Fastify's own hooks: the request id on every answer, and the bodies we parse ourselves. */
function installHttpHooks(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  echoRequestId(fastify);
  installBodyParsers(fastify);
}
