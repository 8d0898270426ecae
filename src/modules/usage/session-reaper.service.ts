import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { SessionReaperRepository } from './session-reaper.repository';

/**
 * Every instance runs this: it closes the sessions of instances that died (no heartbeat for
 * SESSION_HEARTBEAT_TIMEOUT_SECONDS) as `connection_lost`, keeping the usage they flushed. No leader
 * is elected (advisory locks do not work on the embedded database): the UPDATE itself is safe to
 * run from many instances at once.
 */
@Injectable()
export class SessionReaperService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SessionReaperService.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly sessions: SessionReaperRepository,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.sessionReaperIntervalSeconds;
    if (every === 0) return;
    this.timer = setInterval(() => void this.tick(), every * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running; // let a pass in flight finish before the pool closes
  }

  /** One pass; returns the ids it closed. */
  async reapOnce(): Promise<string[]> {
    const reaped = await this.sessions.closeSilentSessions(this.config.sessionHeartbeatTimeoutSeconds);
    if (reaped.length > 0) {
      this.logger.warn(
        { sessions: reaped },
        `closed ${reaped.length} session(s) of a silent instance as connection_lost`,
      );
    }
    return reaped;
  }

  private async tick(): Promise<void> {
    if (this.running) return; // a slow pass is not overlapped by the next one
    this.running = this.reapOnce()
      .catch((error: unknown) => this.logger.error({ err: error }, 'session reaper pass failed'))
      .finally(() => (this.running = null));
    await this.running;
  }
}
