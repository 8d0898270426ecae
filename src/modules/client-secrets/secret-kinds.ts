/**
 * The kinds of client secret, one strategy each: what a request resolves to (the session row's
 * configuration), what the secret stores beyond it, and what its answer shows. The service picks one
 * by the endpoint and the session's type, and does the rest (capacity, admission, the answer) alike.
 */
import { AppError } from '../../platform/errors/app-error';
import { encodeSecretConversation, realtimeTurnDetectionView } from '../../session-core';
import type { ConversationCapabilities } from '../../session-core';
import { VOICECHAT } from '../../engines';
import type { ModelCatalog } from '../models';
import { resolveSessionConfig, type RequestedSessionConfig, type ResolvedSessionConfig } from '../sessions';
import type { ClientSecretRequestDto } from './dto/client-secret-request.dto';
import { conversationSecret, refuseConversationFields } from './conversation-secret';

/** Which endpoint was called: the realtime one makes transcription sessions, or conversations. */
export type ClientSecretEndpoint = 'live' | 'realtime';

export interface SecretResolution {
  readonly resolved: ResolvedSessionConfig;
  /** The answer's `session.object`. */
  readonly object: 'session' | 'realtime.transcription_session' | 'realtime.session';
  /** Stored with the secret for the socket (a conversation's settings); null: nothing. */
  readonly stored: Record<string, unknown> | null;
  /** Shown in the answer's session over the common fields. */
  readonly shown: Record<string, unknown>;
  /** The answer's turn detection in the session's own words, where the row's spelling is not theirs. */
  readonly turnDetection?: Record<string, unknown> | null;
}

export interface SecretKindContext {
  readonly models: ModelCatalog;
  readonly aliases: ReadonlyMap<string, string>;
  /** What the engine of a conversation model can serve (tools, responses). */
  conversationOf(model: string): ConversationCapabilities | undefined;
}

/** POST /v1/live/client_secrets: a live or transcription session of this service's own protocol. */
function liveSecret(request: ClientSecretRequestDto, { models }: SecretKindContext): SecretResolution {
  if (request.session?.type === 'realtime') {
    throw new AppError(
      'invalid_parameter',
      'session.type "realtime" is for POST /v1/realtime/client_secrets; here a conversation is "live"',
      { param: 'session.type' },
    );
  }
  refuseConversationFields(request.session);
  refuseIdleTimeout(request);
  const resolved = resolveSessionConfig(request.session as RequestedSessionConfig | undefined, models);
  return { resolved, object: 'session', stored: null, shown: {} };
}

/** POST /v1/realtime/client_secrets without `type: "realtime"`: a transcription session. */
function transcriptionSecret(request: ClientSecretRequestDto, { models }: SecretKindContext): SecretResolution {
  refuseConversationFields(request.session);
  refuseIdleTimeout(request);
  const resolved = resolveSessionConfig(request.session as RequestedSessionConfig | undefined, models, {
    transcriptionOnly: true,
    realtimeFormats: true,
  });
  return { resolved, object: 'realtime.transcription_session', stored: null, shown: {} };
}

/**
 * A GA `type: "realtime"` session: a live session on its conversation model (`model` may be an
 * operator's alias, REALTIME_MODEL_ALIASES), its settings held to the session core's rules.
 */
function realtimeSecret(request: ClientSecretRequestDto, context: SecretKindContext): SecretResolution {
  const session = request.session!;
  const model = session.model === undefined ? VOICECHAT : (context.aliases.get(session.model) ?? session.model);
  if (context.models.find(model)?.type !== 'live') {
    throw new AppError(
      'invalid_parameter',
      `A realtime session's model is a conversation model (${VOICECHAT}), not ${JSON.stringify(session.model)}`,
      { param: 'session.model' },
    );
  }
  const secret = conversationSecret(session, model, context.conversationOf(model));
  const resolved = resolveSessionConfig(secret.requested, context.models, { realtimeFormats: true });
  const td = resolved.audio.input.turn_detection;
  const turns = secret.turns;
  // The flags the runtime reads (coreConfigOf) ride on the row's turn detection.
  const flags = {
    create_response: turns.createResponse,
    interrupt_response: turns.interruptResponse,
    idle_timeout_ms: turns.idleTimeoutMs,
  };
  const input = { ...resolved.audio.input, turn_detection: td === null ? null : { ...td, ...flags } };
  return {
    resolved: { ...resolved, audio: { ...resolved.audio, input } },
    object: 'realtime.session',
    stored: encodeSecretConversation(secret.stored),
    shown: secret.shown,
    turnDetection: realtimeTurnDetectionView(turns),
  };
}

/** The request resolved by its kind's strategy. */
export function resolveSecret(
  endpoint: ClientSecretEndpoint,
  request: ClientSecretRequestDto,
  context: SecretKindContext,
): SecretResolution {
  if (endpoint === 'live') return liveSecret(request, context);
  if (request.session?.type === 'realtime') return realtimeSecret(request, context);
  return transcriptionSecret(request, context);
}

/** idle_timeout_ms prompts a conversation's user: other sessions have none to prompt. */
function refuseIdleTimeout(request: ClientSecretRequestDto): void {
  const idleTimeout = request.session?.audio?.input?.turn_detection?.idle_timeout_ms;
  if (idleTimeout !== undefined && idleTimeout !== null) {
    throw new AppError('invalid_parameter', 'idle_timeout_ms is for conversation sessions (type "realtime")', {
      param: 'session.audio.input.turn_detection.idle_timeout_ms',
    });
  }
}
