import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../../platform/errors/app-error';
import { newId, sha256Hex } from '../../platform/ids';
import { toUnixSeconds } from '../../platform/time';
import { AppConfig } from '../../config/app-config';
import { CredentialSigner, isClientSecret } from '../auth';
import { LifecycleState } from '../health';
import type { PresentedApiKey } from '../auth';
import { ModelCatalog } from '../models';
import { CLIENT_SECRET_TTL } from './client-secret-ttl';
import {
  newSessionId,
  SessionAdmissionService,
  type SessionAudioConfig,
  toSessionAudioResponse,
  type OpenedSession,
} from '../sessions';
import { CAPACITY_GATE, CapacityGate, ENGINE_REGISTRY, type EngineRegistry } from '../../engines';
import { ClientSecretsRepository } from './client-secrets.repository';
import type { ClientSecretRequestDto } from './dto/client-secret-request.dto';
import { ClientSecretResponseDto, toIngressResponse } from './dto/client-secret-response.dto';
import { RequestOrigin, SocketUrlSettings, socketUrls } from './socket-urls';
import { resolveSecret, type ClientSecretEndpoint, type SecretKindContext } from './secret-kinds';

export type { ClientSecretEndpoint } from './secret-kinds';

export interface RedeemOptions {
  /** The instance that holds the socket, recorded on the session for DELETE and the orphan reaper. */
  instanceId?: string | null;
  /**
   * Asked with the session's project before the redemption commits; throwing keeps the secret unused
   * (the gateway's fair share of its engine streams refuses a project here).
   */
  admit?: (projectId: string) => void;
}

const MAX_SECRET_LENGTH = 256;

@Injectable()
export class ClientSecretsService {
  private readonly urlSettings: SocketUrlSettings;
  private readonly kindContext: SecretKindContext;

  constructor(
    private readonly secrets: ClientSecretsRepository,
    private readonly admission: SessionAdmissionService,
    private readonly models: ModelCatalog,
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    @Inject(CAPACITY_GATE) private readonly capacity: CapacityGate,
    private readonly lifecycle: LifecycleState,
    private readonly signer: CredentialSigner,
    @Inject(ENGINE_REGISTRY) engines: EngineRegistry,
  ) {
    this.kindContext = {
      models,
      aliases: config.realtimeModelAliases,
      conversationOf: (model) => engines.engineFor(model).conversation,
    };
    this.urlSettings = {
      publicUrl: config.publicUrl,
      tls: config.tls !== null,
      fallbackHost: `localhost:${config.port}`,
    };
  }

  /**
   * Issues a secret and its pending session, checking the caller's key in the same statement. The
   * secret's plaintext exists only in the answer.
   */
  async create(
    key: PresentedApiKey,
    request: ClientSecretRequestDto,
    origin: RequestOrigin,
    endpoint: ClientSecretEndpoint,
  ): Promise<ClientSecretResponseDto> {
    // A draining instance issues none: the secret's socket could only be refused here.
    this.lifecycle.assertAcceptingSessions();
    const kind = resolveSecret(endpoint, request, this.kindContext);
    const { resolved } = kind;
    this.models.checkLanguage(
      resolved.model,
      resolved.audio.input.transcription.language,
      'session.audio.input.transcription.language',
    );
    const capacity = this.capacity.check(resolved.model);
    if (!capacity.available) {
      throw new AppError('capacity_exhausted', 'No speech capacity is free right now; retry shortly', {
        retryAfterMs: capacity.retryAfterMs,
      });
    }
    const value = this.signer.mint('ek_');
    const session = {
      id: newSessionId(),
      type: resolved.type,
      model: resolved.model,
      pool: this.config.pool,
      region: this.config.region,
      metadata: request.metadata ?? {},
      audio: resolved.audio,
    };
    const ttlSeconds = request.expires_after?.seconds ?? CLIENT_SECRET_TTL.defaultSeconds;
    const admitted = await this.admission.admit(key, session, {
      status: 'pending',
      secret: { id: newId('cs'), hash: sha256Hex(value), ttlSeconds, realtimeSession: kind.stored },
    });
    const urls = socketUrls(origin, this.urlSettings);
    return {
      value,
      expires_at: toUnixSeconds(admitted.expiresAt!),
      session: {
        id: session.id,
        object: kind.object,
        type: session.type,
        model: session.model,
        pool: session.pool,
        region: session.region,
        audio: shownAudio(session.audio, kind.turnDetection),
        live_url: urls.live,
        ingress: toIngressResponse(session.type, urls, this.config.maxSessionSeconds),
        metadata: session.metadata,
        ...kind.shown,
      },
    };
  }

  /**
   * For the socket layer: trades a client secret for its session, in one transaction. The secret must
   * be known, not revoked, unused and unexpired; it is marked used and its session becomes `active`
   * (started now), so the session never falls between pending and active. The project must still have
   * credit. Throws AppError: invalid_client_secret (401), key_revoked (401: the key that issued it was
   * revoked), client_secret_used (409),
   * client_secret_expired (401), insufficient_credit (403). Of concurrent redemptions exactly one wins.
   */
  async redeem(secret: string, options: RedeemOptions = {}): Promise<OpenedSession> {
    if (!isClientSecret(secret) || secret.length > MAX_SECRET_LENGTH) throw invalidSecret();
    const hash = sha256Hex(secret);
    return this.dataSource.transaction(async (manager) => {
      const found = await this.secrets.lockByHash(manager, hash);
      // Revoking a key revokes its unused secrets; checking the key too closes any race with that.
      if (
        found &&
        (found.keyRevoked || (found.revoked && (await this.secrets.issuedByRevokedKey(manager, found.id))))
      ) {
        throw new AppError('key_revoked', 'The API key that issued this client secret has been revoked');
      }
      if (!found || found.revoked) throw invalidSecret();
      if (found.used) throw new AppError('client_secret_used', 'This client secret already opened its session');
      if (found.lapsed) throw expiredSecret();
      const activated = await this.secrets.useAndActivate(manager, found.id, options.instanceId ?? null);
      if (!activated) throw expiredSecret();
      if (!activated.hasCredit) {
        // Thrown inside the transaction: the secret stays unused and the session pending.
        throw new AppError('insufficient_credit', 'The project has no credit left; add credit to start sessions');
      }
      const { hasCredit: _credit, ...session } = activated;
      options.admit?.(session.projectId);
      return session;
    });
  }
}

const invalidSecret = () => new AppError('invalid_client_secret', 'The client secret is not valid');
const expiredSecret = () => new AppError('client_secret_expired', 'The client secret has expired');

function shownAudio(audio: SessionAudioConfig, turnDetection: Record<string, unknown> | null | undefined) {
  const shown = toSessionAudioResponse(audio);
  if (turnDetection === undefined) return shown;
  return {
    ...shown,
    input: { ...shown.input, turn_detection: turnDetection as unknown as typeof shown.input.turn_detection },
  };
}
