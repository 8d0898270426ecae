import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { DatabaseAvailability } from '../../platform/database/database-availability';
import { SessionReaperRepository } from './session-reaper.repository';

/**
 * Closes the sessions of instances that died (no heartbeat for SESSION_HEARTBEAT_TIMEOUT_SECONDS) as
 * `connection_lost`, keeping the usage they flushed. Every instance runs it (SessionSchedule): no
 * leader is elected (advisory locks do not work on the embedded database), the UPDATE itself is safe
 * to run from many instances at once.
 */
@Injectable()
export class SessionReaper {
  private readonly logger = new Logger('SessionReaperService');

  constructor(
    private readonly sessions: SessionReaperRepository,
    private readonly config: AppConfig,
    private readonly availability: DatabaseAvailability,
  ) {}

  /**
   * One pass; returns the ids it closed. None while the database is away, nor for one heartbeat
   * timeout after it returns: no holder could beat meanwhile, so every live session would look orphaned.
   */
  async reapOnce(): Promise<string[]> {
    if (!this.availability.isUp) return [];
    const recovered = this.availability.recoveredAt;
    if (recovered !== null && Date.now() - recovered < this.config.sessionHeartbeatTimeoutSeconds * 1000) return [];
    const reaped = await this.sessions.closeSilentSessions(this.config.sessionHeartbeatTimeoutSeconds);
    if (reaped.length > 0) {
      this.logger.warn(
        { sessions: reaped },
        `closed ${reaped.length} session(s) of a silent instance as connection_lost`,
      );
    }
    return reaped;
  }
}
