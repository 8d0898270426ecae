/**
 * The query of a `/v1/realtime` upgrade, checked before anything else (no secret is spent on a URL
 * that cannot be served). `?intent=transcription` (the GA transcription client) or a transcription
 * model in `?model=` asks for a transcription session; a conversation model (or an operator's alias
 * of one, REALTIME_MODEL_ALIASES) for a conversation session. Without either the socket serves
 * transcription, as it always has, so that existing clients and remote workers keep working.
 */
import { AppError } from '../../../platform/errors/app-error';
import { TRANSCRIPTION_MODEL, VOICECHAT } from '../../../engines';
import type { DialectContext } from '../../dialect';
import { isServedModel } from './realtime.session-update';

export interface RealtimeQuery {
  readonly type: 'transcription' | 'live';
  /** The conversation model (after aliases); the transcription model for transcription. */
  readonly model: string;
  readonly aliases: ReadonlyMap<string, string>;
}

/** The conversation models a Realtime socket serves (vendor-voicechat), by their ids. */
export const CONVERSATION_MODELS: ReadonlySet<string> = new Set([VOICECHAT]);

export function checkRealtimeQuery(rawUrl: string | undefined, context: DialectContext): RealtimeQuery {
  const query = new URL(rawUrl ?? '/', 'http://localhost').searchParams;
  const aliases = context.modelAliases;
  const intent = query.get('intent');
  if (intent !== null && intent !== 'transcription') {
    throw invalid(
      'intent',
      `intent=${intent} is not served: this socket serves transcription sessions (intent=transcription), or conversation sessions with ?model=${VOICECHAT}`,
    );
  }
  if (query.has('call_id')) {
    throw invalid('call_id', 'Sideband connections to calls (call_id) are not supported');
  }
  const asked = query.get('model');
  const model = asked === null ? null : (aliases.get(asked) ?? asked);
  if (model === null || isServedModel(model) || model === TRANSCRIPTION_MODEL) {
    return { type: 'transcription', model: TRANSCRIPTION_MODEL, aliases };
  }
  if (CONVERSATION_MODELS.has(model) && intent === null) return { type: 'live', model, aliases };
  throw invalid(
    'model',
    intent === null
      ? `The model ${JSON.stringify(asked)} is not served on /v1/realtime: it serves conversation sessions on ${VOICECHAT} and transcription sessions on ${TRANSCRIPTION_MODEL}`
      : `The model ${JSON.stringify(asked)} does not transcribe: with intent=transcription the model is ${TRANSCRIPTION_MODEL}`,
  );
}

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });
