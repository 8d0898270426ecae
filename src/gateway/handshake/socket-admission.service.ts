import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../platform/errors/app-error';
import { newId } from '../../platform/ids';
import type { SessionConfig } from '../../session-core/index';
import { AuthService } from '../../modules/auth';
import { isClientSecret, queryCarriesApiKey } from '../../modules/auth';
import type { ApiKeyPrincipal } from '../../modules/auth';
import { extractSocketCredential, SocketDialect } from './socket-credentials';
import { CAPACITY_GATE, CapacityGate } from '../../engines/capacity-gate';
import { TRANSCRIPTION_MODEL } from '../../session-core';
import { ClientSecretsService } from '../../modules/client-secrets';
import { LifecycleState } from '../../modules/health';
import type { OpenedSession } from '../../modules/sessions';
import { InstanceIdentity } from '../connection/instance-identity';
import { coreConfigOf } from '../connection/session-config.mapping';

/** Who may open the socket, decided before the upgrade. */
export type Admitted =
  | { kind: 'client_secret'; sessionId: string; lock: SessionConfig; opened: OpenedSession }
  | { kind: 'api_key'; sessionId: string; principal: ApiKeyPrincipal };

/**
 * The socket half of authentication, shared by every dialect: the same key checks as REST, plus the
 * client secret, redeemed in one transaction (exactly one socket ever wins it). Every refusal is an
 * AppError, answered as an HTTP status with the ErrorEnvelope before the upgrade.
 */
@Injectable()
export class SocketAdmission {
  private readonly admitted = new WeakMap<IncomingMessage, Admitted>();

  constructor(
    private readonly auth: AuthService,
    private readonly secrets: ClientSecretsService,
    private readonly lifecycle: LifecycleState,
    private readonly instance: InstanceIdentity,
    @Inject(CAPACITY_GATE) private readonly capacity: CapacityGate,
  ) {}

  async admit(req: IncomingMessage, dialect: SocketDialect): Promise<Admitted> {
    this.lifecycle.assertAcceptingSessions();
    if (queryCarriesApiKey(req.url)) {
      throw new AppError(
        'api_key_in_query',
        'API keys are never accepted in a URL; send the key in a header or use a client secret',
      );
    }
    const found = extractSocketCredential(req, dialect);
    if (found.kind === 'none') {
      throw new AppError(
        'missing_api_key',
        'Send an API key in the Authorization header, or a client secret as ?token=',
      );
    }
    if (found.kind === 'malformed') throw new AppError('invalid_api_key', found.reason);
    // Before redemption, so a full instance never burns a secret.
    // The compatibility dialects only transcribe; a live socket picks its model later.
    const verdict = this.capacity.check(dialect === 'live' ? undefined : TRANSCRIPTION_MODEL);
    if (!verdict.available) {
      throw new AppError('capacity_exhausted', 'No speech engine capacity on this instance', {
        retryAfterMs: verdict.retryAfterMs,
      });
    }
    const value = found.credential.value;
    const result: Admitted = isClientSecret(value)
      ? await this.redeem(value)
      : {
          kind: 'api_key',
          sessionId: newId('sess'),
          principal: await this.auth.verifyApiKey(value, { headers: req.headers }),
        };
    this.admitted.set(req, result);
    return result;
  }

  /** What admit() decided for this upgrade request (handed from the handshake to the connection). */
  take(req: IncomingMessage): Admitted {
    const result = this.admitted.get(req);
    if (!result) throw new Error('socket connected without an admission');
    this.admitted.delete(req);
    return result;
  }

  private async redeem(secret: string): Promise<Admitted> {
    const opened = await this.secrets.redeem(secret, { instanceId: this.instance.id });
    return {
      kind: 'client_secret',
      sessionId: opened.id,
      lock: coreConfigOf(opened.type, opened.model, opened.audio),
      opened,
    };
  }
}
