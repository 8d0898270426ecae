import { Injectable, Logger } from '@nestjs/common';
import { isDatabaseConnectionError } from '../../platform/database/database-availability';
import { AppError } from '../../platform/errors/app-error';
import type { ActivationResult, MeterPort, SessionStorePort } from '../../session-core';
import { SessionsService } from '../../modules/sessions';
import { MetricsService } from '../../modules/metrics';
import { PendingUsageWriter } from '../../modules/usage';
import { InstanceIdentity } from './instance-identity';
import type { AdmittedSession } from './admitted-session';
import { requestedOf } from './session-config.mapping';
import type { DialectName } from '../dialect';

export interface SessionPorts {
  store: SessionStorePort;
  meter: MeterPort;
  /** After the runtime is done: records a redeemed session that never started (socket gone first). */
  settle(): Promise<void>;
}

/**
 * Binds a connection's session runtime to the database: admission, close record, metering. It also
 * counts sessions and meter writes in the metrics and writes the one log line of each session's end
 * (ids, model, dialect, duration, frames, close reason: never a credential).
 */
@Injectable()
export class SessionPortsFactory {
  private readonly logger = new Logger('SessionPorts');
  private readonly sessionLog = new Logger('Session');

  constructor(
    private readonly sessions: SessionsService,
    private readonly usage: PendingUsageWriter,
    private readonly instance: InstanceIdentity,
    private readonly metrics: MetricsService,
  ) {}

  create(admitted: AdmittedSession, dialect: DialectName): SessionPorts {
    let activated = false;
    let closed = false;
    const opened = admitted.kind === 'opened' ? admitted.opened : null;
    const projectId = admitted.kind === 'opened' ? admitted.opened.projectId : admitted.principal.projectId;
    let model = opened?.model ?? 'unknown';
    let startedAtMs = opened?.startedAt.getTime() ?? null;
    const counters = this.metrics.sessions;
    const opening = (activation: { config: { model: string }; startedAtMs: number }) => {
      model = activation.config.model;
      startedAtMs ??= activation.startedAtMs;
      counters.opened.inc({ dialect, model });
    };
    const logEnd = (sessionId: string, endedAtMs: number, frames: number, reason: string, detail: string) =>
      this.sessionLog.log(
        {
          sessionId,
          projectId,
          model,
          dialect,
          durationMs: startedAtMs === null ? 0 : Math.max(0, endedAtMs - startedAtMs),
          frames,
          closeReason: reason,
          detail,
          instanceId: this.instance.id,
        },
        'session ended',
      );
    const store: SessionStorePort = {
      activate: async (_sessionId, activation): Promise<ActivationResult> => {
        // Opened at the handshake (a redeemed secret, or a key on a socket configured there): active already.
        if (admitted.kind === 'opened') {
          activated = true;
          opening(activation);
          return { ok: true };
        }
        try {
          await this.sessions.openWithApiKey(admitted.principal, requestedOf(activation.config), {
            sessionId: admitted.sessionId,
            instanceId: this.instance.id,
          });
          activated = true;
          opening(activation);
          return { ok: true };
        } catch (error) {
          if (isDatabaseConnectionError(error, true)) {
            return { ok: false, code: 'database_unavailable', message: 'The database is unavailable; retry shortly' };
          }
          if (!(error instanceof AppError)) throw error;
          return { ok: false, code: error.code, message: error.message, param: error.param };
        }
      },
      close: async (sessionId, closing) => {
        closed = true;
        // Kept in memory, after the session's meter batches, while the database is away.
        await this.usage.recordClose(sessionId, { reason: closing.reason, endedAtMs: closing.endedAtMs });
        counters.closed.inc({ dialect, model, reason: closing.reason });
        logEnd(sessionId, closing.endedAtMs, closing.usage.frames, closing.reason, closing.detail);
      },
    };
    const meter: MeterPort = {
      record: async (sessionId, batch) => {
        const key = `${sessionId}:${batch.seq}`;
        counters.meterStarted(key);
        try {
          counters.meterDone(key, (await this.usage.recordBatch(sessionId, batch)) === 'written');
        } catch (error) {
          counters.meterDone(key, false);
          throw error;
        }
      },
    };
    const settle = async (): Promise<void> => {
      counters.forgetSession(admitted.sessionId);
      if (admitted.kind !== 'opened' || closed || activated) return;
      try {
        await this.usage.recordClose(admitted.sessionId, { reason: 'connection_lost', endedAtMs: Date.now() });
        logEnd(admitted.sessionId, Date.now(), 0, 'connection_lost', 'never_started');
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
