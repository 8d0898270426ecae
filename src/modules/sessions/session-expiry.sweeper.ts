import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { SessionsRepository } from './sessions.repository';

/**
 * Marks pending sessions whose secret lapsed unused `expired`. Limits and views already treat them so;
 * this keeps the stored status true for exports and anything else that reads the rows. One UPDATE per
 * tick, safe when every instance runs it.
 */
@Injectable()
export class SessionExpirySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SessionExpirySweeper.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.sessionExpirySweepSeconds * 1000);
    this.timer.unref(); // never the reason a process stays alive
  }

  /** Waits for a sweep in flight, so that the database is not closed under it. */
  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Runs one sweep now, or joins the one in flight. */
  sweep(): Promise<void> {
    this.running ??= this.sessions
      .expireLapsedPending()
      .then((expired) => {
        if (expired > 0) this.logger.debug(`${expired} lapsed pending session(s) marked expired`);
      })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'sweeping lapsed pending sessions failed'))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
