import { Injectable, Logger } from '@nestjs/common';
import { SessionsRepository } from './sessions.repository';

/**
 * Marks pending sessions whose secret lapsed unused `expired`. Limits and views already treat them so;
 * this keeps the stored status true for exports and anything else that reads the rows. One UPDATE per
 * pass (SessionSchedule), safe when every instance runs it.
 */
@Injectable()
export class SessionExpirySweeper {
  private readonly logger = new Logger(SessionExpirySweeper.name);

  constructor(private readonly sessions: SessionsRepository) {}

  async sweep(): Promise<void> {
    try {
      const expired = await this.sessions.expireLapsedPending();
      if (expired > 0) this.logger.debug(`${expired} lapsed pending session(s) marked expired`);
    } catch (error) {
      this.logger.warn({ err: error }, 'sweeping lapsed pending sessions failed');
    }
  }
}
