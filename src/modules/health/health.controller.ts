import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../auth';
import { LifecycleState } from './lifecycle-state';

/** Kubernetes probes: liveness needs nothing; readiness needs the database and a non-draining instance. */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lifecycle: LifecycleState,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  liveness(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readiness(): Promise<{ status: 'ok'; database: 'ok' }> {
    this.lifecycle.assertAcceptingSessions(); // 503 shutting_down from the first moment of a drain
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      throw new ServiceUnavailableException('database unreachable');
    }
    return { status: 'ok', database: 'ok' };
  }
}
