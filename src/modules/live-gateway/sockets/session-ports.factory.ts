import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../../../common/errors/app-error';
import type { ActivationResult, MeterPort, SessionStorePort } from '../../../session-core';
import { SessionsService } from '../../sessions/sessions.service';
import { MeterService } from '../../usage/meter.service';
import { InstanceIdentity } from './instance-identity';
import type { Admitted } from './socket-admission.service';
import { requestedOf } from './session-config.mapping';

export interface SessionPorts {
  store: SessionStorePort;
  meter: MeterPort;
  /** After the runtime is done: records a redeemed session that never started (socket gone first). */
  settle(): Promise<void>;
}

/** Binds a connection's session runtime to the database: admission, close record, metering. */
@Injectable()
export class SessionPortsFactory {
  private readonly logger = new Logger('SessionPorts');

  constructor(
    private readonly sessions: SessionsService,
    private readonly meterService: MeterService,
    private readonly instance: InstanceIdentity,
  ) {}

  create(admitted: Admitted): SessionPorts {
    let activated = false;
    let closed = false;
    const store: SessionStorePort = {
      activate: async (_sessionId, activation): Promise<ActivationResult> => {
        // A redeemed secret's session is active since the handshake, under the secret's config.
        if (admitted.kind === 'client_secret') {
          activated = true;
          return { ok: true };
        }
        try {
          await this.sessions.openWithApiKey(admitted.principal, requestedOf(activation.config), {
            sessionId: admitted.sessionId,
            instanceId: this.instance.id,
          });
          activated = true;
          return { ok: true };
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return { ok: false, code: error.code, message: error.message, param: error.param };
        }
      },
      close: async (sessionId, closing) => {
        closed = true;
        await this.sessions.markClosed(sessionId, closing.reason);
      },
    };
    const meter: MeterPort = {
      record: (sessionId, batch) => this.meterService.recordBatch(sessionId, batch.seq, batch.frames),
    };
    const settle = async (): Promise<void> => {
      if (admitted.kind !== 'client_secret' || closed || activated) return;
      try {
        await this.sessions.markClosed(admitted.sessionId, 'connection_lost');
      } catch (error) {
        this.logger.error(
          { err: error, sessionId: admitted.sessionId },
          'could not record an unstarted session as closed',
        );
      }
    };
    return { store, meter, settle };
  }
}
