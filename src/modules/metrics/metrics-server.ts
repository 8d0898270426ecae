import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '../../config/app-config';
import { MetricsService } from './metrics.service';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * With METRICS_PORT, /metrics is served here, on its own plain-HTTP port, so that the public port (and
 * any Ingress in front of it) never exposes it. It keeps answering while the instance drains: the last
 * scrapes of a stopping pod are the ones that show its sessions ending.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server: Server | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  /** The bound port (METRICS_PORT, or the one picked for 0 in tests), or null when not serving. */
  get port(): number | null {
    return this.server ? (this.server.address() as AddressInfo).port : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metricsPort;
    if (port === null) return;
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      this.metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': CONTENT_TYPE }).end(text),
        (error: unknown) => {
          this.logger.error({ err: error }, 'metrics scrape failed');
          res.writeHead(500).end();
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject).listen(port, this.config.host, resolve);
    });
    this.server = server;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
