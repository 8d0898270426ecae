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
  resolveSessionConfig,
  SessionAdmissionService,
  type RequestedSessionConfig,
  type ResolvedSessionConfig,
  toSessionAudioResponse,
  type OpenedSession,
} from '../sessions';
import { CAPACITY_GATE, CapacityGate, VOICECHAT } from '../../engines';
import { ClientSecretsRepository } from './client-secrets.repository';
import type { ClientSecretRequestDto } from './dto/client-secret-request.dto';
import type { RequestedSessionDto } from './dto/requested-session.dto';
import { ClientSecretResponseDto, toIngressResponse } from './dto/client-secret-response.dto';
import { RequestOrigin, SocketUrlSettings, socketUrls } from './socket-urls';
import { REALTIME_SESSION_CHECK, type RealtimeSessionCheck } from './realtime-session-check';
import { refuseConversationFields, secretConversation, type SecretConversation } from './secret-conversation';

/** Which endpoint was called: the realtime one makes transcription sessions only. */
export type ClientSecretEndpoint = 'live' | 'realtime';

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

  constructor(
    private readonly secrets: ClientSecretsRepository,
    private readonly admission: SessionAdmissionService,
    private readonly models: ModelCatalog,
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    @Inject(CAPACITY_GATE) private readonly capacity: CapacityGate,
    private readonly lifecycle: LifecycleState,
    @Inject(REALTIME_SESSION_CHECK) private readonly realtimeCheck: RealtimeSessionCheck,
    private readonly signer: CredentialSigner,
  ) {
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
    if (endpoint === 'live' && request.session?.type === 'realtime') {
      throw new AppError(
        'invalid_parameter',
        'session.type "realtime" is for POST /v1/realtime/client_secrets; here a conversation is "live"',
        {
          param: 'session.type',
        },
      );
    }
    const conversation = endpoint === 'realtime' && request.session?.type === 'realtime';
    if (!conversation) refuseConversationFields(request.session);
    const idleTimeout = request.session?.audio?.input?.turn_detection?.idle_timeout_ms;
    if (!conversation && idleTimeout !== undefined && idleTimeout !== null) {
      throw new AppError('invalid_parameter', 'idle_timeout_ms is for conversation sessions (type "realtime")', {
        param: 'session.audio.input.turn_detection.idle_timeout_ms',
      });
    }
    const resolved = conversation
      ? withConversationTurns(
          resolveSessionConfig(this.conversationRequest(request.session!), this.models, { realtimeFormats: true }),
          request,
        )
      : resolveSessionConfig(request.session as RequestedSessionConfig | undefined, this.models, {
          transcriptionOnly: endpoint === 'realtime',
          realtimeFormats: endpoint === 'realtime',
        });
    const settings: SecretConversation | null = conversation
      ? secretConversation(request.session!, resolved.model, this.realtimeCheck)
      : null;
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
      secret: { id: newId('cs'), hash: sha256Hex(value), ttlSeconds, realtimeSession: settings?.stored ?? null },
    });
    const urls = socketUrls(origin, this.urlSettings);
    return {
      value,
      expires_at: toUnixSeconds(admitted.expiresAt!),
      session: {
        id: session.id,
        object: conversation
          ? 'realtime.session'
          : endpoint === 'realtime'
            ? 'realtime.transcription_session'
            : 'session',
        type: session.type,
        model: session.model,
        pool: session.pool,
        region: session.region,
        audio: toSessionAudioResponse(session.audio),
        live_url: urls.live,
        ingress: toIngressResponse(session.type, urls, this.config.maxSessionSeconds),
        metadata: session.metadata,
        ...settings?.shown,
      },
    };
  }

  /**
   * A GA `type: "realtime"` session (POST /v1/realtime/client_secrets) → a live session on its
   * conversation model: `model` may be an operator's alias (REALTIME_MODEL_ALIASES), and an OpenAI
   * transcription model name stands for the session's own recogniser, as on the socket.
   */
  private conversationRequest(session: RequestedSessionDto): RequestedSessionConfig {
    const model =
      session.model === undefined ? VOICECHAT : (this.config.realtimeModelAliases.get(session.model) ?? session.model);
    if (this.models.find(model)?.type !== 'live') {
      throw new AppError(
        'invalid_parameter',
        `A realtime session's model is a conversation model (${VOICECHAT}), not ${JSON.stringify(session.model)}`,
        {
          param: 'session.model',
        },
      );
    }
    return { type: 'live', model, include: session.include, audio: withoutTranscriptionModel(session.audio) };
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

/** A conversation session transcribes with its recogniser whatever transcription model the client names. */
function withoutTranscriptionModel(audio: RequestedSessionDto['audio']): RequestedSessionDto['audio'] {
  const transcription = audio?.input?.transcription;
  if (transcription?.model === undefined) return audio;
  const { model: _model, ...rest } = transcription;
  return { ...audio, input: { ...audio!.input, transcription: rest } };
}

/**
 * A conversation keeps what its turn detection asked of the session core and the conversation
 * (interrupt_response, idle_timeout_ms, create_response); other live sessions store none of them (they
 * always barge in and answer).
 */
function withConversationTurns(resolved: ResolvedSessionConfig, request: ClientSecretRequestDto) {
  const asked = request.session?.audio?.input?.turn_detection;
  const stored = resolved.audio.input.turn_detection;
  if (stored === null || asked === undefined || asked === null) return resolved;
  const turns = {
    ...(asked.interrupt_response === undefined ? {} : { interrupt_response: asked.interrupt_response }),
    ...(asked.idle_timeout_ms === undefined ? {} : { idle_timeout_ms: asked.idle_timeout_ms }),
    ...(asked.create_response === undefined ? {} : { create_response: asked.create_response }),
  };
  const input = { ...resolved.audio.input, turn_detection: { ...stored, ...turns } };
  return { ...resolved, audio: { ...resolved.audio, input } };
}
