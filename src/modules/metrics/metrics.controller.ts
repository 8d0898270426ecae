import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../platform/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { Public } from '../auth';
import { MetricsService } from './metrics.service';

@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    // With METRICS_PORT, the metrics live on their own port only (MetricsServer); here they do not exist.
    if (this.config.metricsPort !== null) throw new AppError('not_found', 'Not found');
    void reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8');
    return this.metrics.registry.metrics();
  }
}
