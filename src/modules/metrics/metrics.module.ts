import { Global, Module, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ENGINE_METERS } from '../../engines';
import { pgPool } from '../../platform/database/pg-pool';
import { HttpMetricsHooks } from './http-metrics.hooks';
import { MetricsController } from './metrics.controller';
import { MetricsServer } from './metrics-server';
import { MetricsService } from './metrics.service';

// Global: ENGINE_METERS must reach the engines module, which may import no feature module.
@Global()
@Module({
  controllers: [MetricsController],
  providers: [
    MetricsService,
    MetricsServer,
    HttpMetricsHooks,
    // Engines are metered through this, without importing this module.
    { provide: ENGINE_METERS, inject: [MetricsService], useFactory: (metrics: MetricsService) => metrics.sessions },
  ],
  exports: [MetricsService, ENGINE_METERS],
})
export class MetricsModule implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    // The pool under TypeORM: read at scrape time (total, idle, and callers waiting for a connection).
    this.metrics.sessions.watchPool(() => {
      const pool = pgPool(this.dataSource);
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
    });
  }
}
