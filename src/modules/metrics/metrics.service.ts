import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { SessionMetrics } from './session-metrics';

/** One registry per app instance (tests run several apps in one process). */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency, by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly liveSessions = new Gauge({
    name: 'continuum_sessions_open',
    help: 'Sessions open on this instance (a socket, or a batch request under way), by dialect',
    labelNames: ['dialect'] as const,
    registers: [this.registry],
  });

  readonly escapedErrors = new Counter({
    name: 'continuum_escaped_errors_total',
    help: 'Errors no session or request caught (unhandled rejections, uncaught exceptions): each is a bug',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly sessions = new SessionMetrics(this.registry);

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }
}
