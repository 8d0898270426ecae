/**
 * The query of a `/v1/realtime` upgrade, checked before anything else (no secret is spent on a URL
 * that cannot be served). `?intent=transcription` (the GA transcription client) or a transcription
 * model in `?model=` asks for a transcription session; a conversation model (or an operator's alias
 * of one, REALTIME_MODEL_ALIASES) for a conversation session. Without either the socket serves
 * transcription, as it always has, so that existing clients and remote workers keep working.
 * `?call_id=` (a call's `rtc_` id or its session id) joins a running call instead: the sideband.
 */
import { AppError } from '../../../platform/errors/app-error';
import { TRANSCRIPTION_MODEL, VOICECHAT } from '../../../engines';
import { isCallId, isSessionId } from '../../../modules/sessions';
import type { DialectContext } from '../../dialect';
import { isServedModel } from './realtime.session-update';

export interface RealtimeQuery {
  readonly type: 'transcription' | 'live';
  /** The conversation model (after aliases); the transcription model for transcription. */
  readonly model: string;
  readonly aliases: ReadonlyMap<string, string>;
  /** The sideband: the running call (its `rtc_` id or session id) the socket joins; null for a session of its own. */
  readonly callId: string | null;
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
  const callId = query.get('call_id');
  if (callId !== null) {
    if (!isCallId(callId) && !isSessionId(callId)) {
      throw invalid('call_id', "call_id names a call by its id (rtc_…) or its session's id (sess_…)");
    }
    if (intent !== null) throw invalid('intent', 'A sideband (call_id) joins a conversation: send no intent');
    return { type: 'live', model: VOICECHAT, aliases, callId };
  }
  const asked = query.get('model');
  const model = asked === null ? null : (aliases.get(asked) ?? asked);
  if (model === null || isServedModel(model) || model === TRANSCRIPTION_MODEL) {
    return { type: 'transcription', model: TRANSCRIPTION_MODEL, aliases, callId: null };
  }
  if (CONVERSATION_MODELS.has(model) && intent === null) return { type: 'live', model, aliases, callId: null };
  throw invalid(
    'model',
    intent === null
      ? `The model ${JSON.stringify(asked)} is not served on /v1/realtime: it serves conversation sessions on ${VOICECHAT} and transcription sessions on ${TRANSCRIPTION_MODEL}`
      : `The model ${JSON.stringify(asked)} does not transcribe: with intent=transcription the model is ${TRANSCRIPTION_MODEL}`,
  );
}

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });
