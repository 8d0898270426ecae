import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DatabaseAvailability } from '../../platform/database/database-availability';
import { Public } from '../auth';
import { LifecycleState } from './lifecycle-state';

/**
 * Kubernetes probes: liveness needs nothing; readiness fails only for this instance's own reasons
 * (draining: 503 `shutting_down`). The database's state is in the body but never fails it: every
 * replica shares the database, so an outage would empty the Service at once and the Ingress would
 * answer 503 itself, without the `database_unavailable` envelope and its `retry_after_ms`.
 */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly availability: DatabaseAvailability,
    private readonly lifecycle: LifecycleState,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  liveness(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  readiness(): { status: 'ok'; database: 'up' | 'down' } {
    this.lifecycle.assertAcceptingSessions(); // 503 shutting_down from the first moment of a drain
    return { status: 'ok', database: this.availability.state };
  }
}
