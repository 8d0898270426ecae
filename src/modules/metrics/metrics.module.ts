import { Global, Module, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { pgPool } from '../usage/pg-pool';
import { MetricsController } from './metrics.controller';
import { MetricsServer } from './metrics-server';
import { MetricsService } from './metrics.service';

@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService, MetricsServer], exports: [MetricsService] })
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
