import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { AppModule } from './app.module';
import { renderError } from './common/errors/error-renderer';
import { answerClientError, answerFrameworkError } from './common/http/framework-errors';
import { installBodyParsers, MAX_BODY_BYTES } from './common/http/request-body';
import { newId } from './common/ids';
import { createRootLogger, PinoNestLogger } from './common/logging/logger';
import { buildOpenApiDocument } from './common/openapi/openapi-document';
import { AppConfig } from './config/app-config';
import { DatabaseLocation } from './database/database.module';
import type { PresentedApiKey, RateLimitState } from './modules/auth/principal';
import { RawFramesWsAdapter } from './modules/live-gateway/sockets/raw-frames-ws-adapter';
import { MetricsService } from './modules/metrics/metrics.service';
import { OpenApiDocumentHolder } from './modules/openapi/openapi-document.holder';

export interface CreateAppOptions {
  config: AppConfig;
  database: DatabaseLocation;
  /** Defaults to a JSON logger on stdout at the configured level. */
  logger?: Logger;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const UNVERSIONED = ['healthz', 'readyz', 'metrics'];

/** Builds the app exactly as production runs it; main.ts, the tests and the OpenAPI script all call this. */
export async function createApp({ config, database, logger }: CreateAppOptions): Promise<NestFastifyApplication> {
  const root = logger ?? createRootLogger(config.logLevel);
  const adapter = new FastifyAdapter({
    loggerInstance: root,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newId('req');
    },
    bodyLimit: MAX_BODY_BYTES,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    https: config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : undefined,
  } as ConstructorParameters<typeof FastifyAdapter>[0]);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, database), adapter, {
    logger: new PinoNestLogger(root),
    abortOnError: false,
    bodyParser: false, // JSON bodies are parsed by our own parser (installHttpHooks)
  });
  app.setGlobalPrefix('v1', { exclude: UNVERSIONED });
  // Sockets read their frames themselves (binary-safe); Nest would parse, and pipe through rxjs, every audio frame.
  app.useWebSocketAdapter(new RawFramesWsAdapter(app));
  app.enableShutdownHooks();
  installHttpHooks(app, root);
  await app.init();

  const document = buildOpenApiDocument(app);
  app.get(OpenApiDocumentHolder).document = document;
  SwaggerModule.setup('docs', app, document, { raw: false, swaggerOptions: { url: '/v1/openapi.json' } });
  return app;
}

function installHttpHooks(app: NestFastifyApplication, root: Logger): void {
  const fastify = app.getHttpAdapter().getInstance();
  const metrics = app.get(MetricsService);

  fastify.addHook('onSend', async (request, reply, payload) => {
    void reply.header('x-request-id', request.id);
    const presented = (request as unknown as { presentedKey?: PresentedApiKey }).presentedKey;
    if (presented && !presented.settled && reply.statusCode < 400) {
      // A route that checks its key itself answered without doing so: a bug, never an open door.
      root.error({ requestId: request.id, route: request.routeOptions.url }, 'answer refused: API key never checked');
      const refused = renderError(new Error('API key never checked'), request.id);
      void reply.code(refused.status);
      return JSON.stringify(refused.body);
    }
    const rate = (request as unknown as { rateLimit?: RateLimitState }).rateLimit;
    if (rate) {
      void reply.header('x-ratelimit-limit-requests', String(rate.limit));
      void reply.header('x-ratelimit-remaining-requests', String(rate.remaining));
      void reply.header('x-ratelimit-reset-requests', `${Math.ceil(rate.resetMs / 1000)}s`);
    }
    return payload;
  });
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeHttp(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
  installBodyParsers(fastify);
}
