import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppError } from '../../platform/errors/app-error';

/** What a refused client is told to wait before trying again (another replica takes it meanwhile). */
export const SHUTDOWN_RETRY_MS = 1000;

/**
 * Whether this instance still takes new sessions; flipped when it starts draining on SIGTERM. It
 * flips in the first shutdown hook Nest runs (module destroy), so `/readyz` answers 503 at once while
 * the instance still serves the sessions it holds.
 */
@Injectable()
export class LifecycleState implements OnModuleDestroy {
  private draining = false;

  get isDraining(): boolean {
    return this.draining;
  }

  startDraining(): void {
    this.draining = true;
  }

  onModuleDestroy(): void {
    this.startDraining();
  }

  /** Refuses new sessions (client secrets, sockets) while draining: 503 `shutting_down`. */
  assertAcceptingSessions(): void {
    if (this.draining) {
      throw new AppError('shutting_down', 'This instance is shutting down; retry (another instance will answer)', {
        retryAfterMs: SHUTDOWN_RETRY_MS,
      });
    }
  }
}
