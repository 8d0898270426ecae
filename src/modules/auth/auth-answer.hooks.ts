import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { renderError } from '../../platform/errors/error-renderer';
import type { PresentedApiKey, RateLimitState } from './principal';

/**
 * The auth module's part of every HTTP answer, as a Fastify hook on the app's server: an answer whose
 * API key was never checked is refused, and a rate-limited request's answer carries its x-ratelimit-*
 * headers. Registered with the app's routes, before the server is ready.
 */
@Injectable()
export class AuthAnswerHooks implements OnModuleInit {
  private readonly logger = new Logger('Auth');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // No HTTP server in an application context (the CLI) or the medium tier.
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.addHook('onSend', async (request, reply, payload) => {
      const presented = (request as unknown as { presentedKey?: PresentedApiKey }).presentedKey;
      if (presented && !presented.settled && reply.statusCode < 400) {
        // A route that checks its key itself answered without doing so: a bug, never an open door.
        this.logger.error(
          { requestId: request.id, route: request.routeOptions.url },
          'answer refused: API key never checked',
        );
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
  }
}
