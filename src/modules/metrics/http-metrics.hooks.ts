import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { MetricsService } from './metrics.service';
import { refusalCode } from './session-metrics';

function refusalCodeOf(payload: unknown): string {
  try {
    return refusalCode(typeof payload === 'string' ? JSON.parse(payload) : null);
  } catch {
    return 'unknown';
  }
}

/**
 * The metrics of every HTTP answer, as Fastify hooks on the app's server: each request's route, status
 * and duration, and a client secret refused (whoever refused it: the guard, the pipe, the service or
 * the body parser), by its error code. Registered with the app's routes, before the server is ready.
 */
@Injectable()
export class HttpMetricsHooks implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    // No HTTP server in an application context (the CLI) or the medium tier.
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode >= 400 && request.routeOptions.url?.endsWith('/client_secrets')) {
        this.metrics.sessions.refusals.inc({ surface: 'secret', code: refusalCodeOf(payload) });
      }
      return payload;
    });
    fastify.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.metrics.observeHttp(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    });
  }
}
