/**
 * Validation of the live `session.start` and `session.update` payloads into neutral commands.
 * Strict where a mistake would go unnoticed (unknown fields, other voices or formats), lenient
 * where the convention allows omission (every field but `model` has a default). A session opened
 * with a client secret runs the secret's configuration: a start may repeat it or leave it out,
 * but asking for anything else is `session_config_locked`.
 */
import {
  type TurnDetectionConfig,
  DEFAULT_END_OF_TURN,
  DEFAULT_LANGUAGE,
  DEFAULT_VAD,
  VOICE,
  type OutputEncoding,
  type SessionCommand,
  type SessionConfig,
  type SessionType,
} from '../../../session-core';
import { ASR_STREAMING, VOICECHAT } from '../../../engines';
import { Fields, isRecord, Reject, reject } from '../../connection/client-frames';

export const LIVE_MODELS: Readonly<Record<string, SessionType>> = {
  [VOICECHAT]: 'live',
  [ASR_STREAMING]: 'transcription',
};

/** The live convention has no VAD settings: API-key sessions get the defaults, and live ones end turns eagerly. */
function defaultTurnDetection(type: SessionType): TurnDetectionConfig {
  return type === 'live' ? { ...DEFAULT_VAD, endOfTurn: DEFAULT_END_OF_TURN } : DEFAULT_VAD;
}

const START_FIELDS = new Set(['model', 'audio', 'instructions', 'input', 'delegation', 'store', 'triggers', 'client']);
const AUDIO_FIELDS = new Set(['format', 'output']);
const OUTPUT_FIELDS = new Set(['voice', 'encoding']);
const IMMUTABLE_FIELDS = new Set(['model', 'audio', 'instructions', 'input', 'store']);

/** `lock` is the client secret's configuration, or null for a session opened with an API key. */
export function resolveLiveStart(
  raw: unknown,
  clientEventId: string | undefined,
  lock: SessionConfig | null,
): SessionCommand {
  const fail = (code: string, message: string, param: string | null) => reject(code, message, param, clientEventId);
  if (!isRecord(raw)) return fail('missing_parameter', 'session.start needs a session object', 'session');
  const unknown = unknownField(raw, START_FIELDS, 'session');
  if (unknown !== null) return fail('unknown_parameter', `Unknown parameter: '${unknown}'`, unknown);

  const model = raw.model ?? lock?.model;
  if (model === undefined) return fail('missing_parameter', 'session.model is required', 'session.model');
  if (typeof model !== 'string' || LIVE_MODELS[model] === undefined) {
    return fail(
      'invalid_parameter',
      `unknown model ${JSON.stringify(model)}: use vendor-voicechat or vendor-asr-streaming`,
      'session.model',
    );
  }
  if (lock !== null && model !== lock.model) return locked(fail, 'session.model');
  const type = LIVE_MODELS[model];

  const audio = raw.audio ?? {};
  if (!isRecord(audio)) return fail('invalid_parameter', 'session.audio must be an object', 'session.audio');
  const unknownAudio = unknownField(audio, AUDIO_FIELDS, 'session.audio');
  if (unknownAudio !== null) return fail('unknown_parameter', `Unknown parameter: '${unknownAudio}'`, unknownAudio);
  if (!isServedFormat(audio.format)) {
    return fail('unsupported_audio_format', 'only {"type":"audio/pcm","rate":24000} is served', 'session.audio.format');
  }
  const output = audio.output ?? {};
  if (!isRecord(output))
    return fail('invalid_parameter', 'session.audio.output must be an object', 'session.audio.output');
  const unknownOutput = unknownField(output, OUTPUT_FIELDS, 'session.audio.output');
  if (unknownOutput !== null) return fail('unknown_parameter', `Unknown parameter: '${unknownOutput}'`, unknownOutput);
  const voice = voiceName(output.voice);
  if (voice !== null && voice !== VOICE) {
    return fail(
      'invalid_voice',
      `voice ${JSON.stringify(voice)} is not available: the only voice is "aria"`,
      'session.audio.output.voice',
    );
  }
  const encoding = output.encoding ?? lock?.outputEncoding ?? 'base64';
  if (encoding !== 'base64' && encoding !== 'binary') {
    return fail(
      'invalid_parameter',
      'session.audio.output.encoding must be "base64" or "binary"',
      'session.audio.output.encoding',
    );
  }
  if (lock !== null && encoding !== lock.outputEncoding) return locked(fail, 'session.audio.output.encoding');

  const unsupported = unsupportedField(raw);
  if (unsupported !== null) return fail('unsupported_parameter', unsupported.message, unsupported.param);

  const config: SessionConfig = {
    type,
    model,
    voice: type === 'live' ? VOICE : null,
    language: lock?.language ?? DEFAULT_LANGUAGE,
    turnDetection: lock === null ? defaultTurnDetection(type) : lock.turnDetection,
    outputEncoding: encoding as OutputEncoding,
  };
  return clientEventId === undefined ? { type: 'start', config } : { type: 'start', config, clientEventId };
}

/** Nothing of the session can change after start; no-op delegation and triggers are accepted. */
export function checkLiveUpdate(raw: unknown, clientEventId: string | undefined): SessionCommand {
  const fail = (code: string, message: string, param: string | null) => reject(code, message, param, clientEventId);
  if (raw !== undefined && raw !== null) {
    if (!isRecord(raw)) return fail('invalid_parameter', 'session.update needs a session object', 'session');
    for (const key of Object.keys(raw)) {
      if (IMMUTABLE_FIELDS.has(key))
        return fail('immutable_parameter', `session.${key} is fixed at session.start`, `session.${key}`);
      if (key !== 'delegation' && key !== 'triggers')
        return fail('unknown_parameter', `Unknown parameter: 'session.${key}'`, `session.${key}`);
    }
    const unsupported = unsupportedField(raw);
    if (unsupported !== null) return fail('unsupported_parameter', unsupported.message, unsupported.param);
  }
  return clientEventId === undefined ? { type: 'update' } : { type: 'update', clientEventId };
}

function locked(fail: (code: string, message: string, param: string | null) => Reject, param: string): Reject {
  return fail('session_config_locked', `${param} is set by the client secret and cannot be changed`, param);
}

function unknownField(fields: Fields, known: ReadonlySet<string>, prefix: string): string | null {
  for (const key of Object.keys(fields)) if (!known.has(key)) return `${prefix}.${key}`;
  return null;
}

function isServedFormat(format: unknown): boolean {
  if (format === undefined || format === null) return true;
  if (!isRecord(format) || format.type !== 'audio/pcm') return false;
  return format.rate === undefined || format.rate === null || format.rate === 24000;
}

/** The convention allows a name or `{id}`; null when the client left it out. */
function voiceName(voice: unknown): string | null {
  if (voice === undefined || voice === null) return null;
  if (typeof voice === 'string') return voice;
  if (isRecord(voice) && typeof voice.id === 'string') return voice.id;
  return JSON.stringify(voice);
}

/** Delegation, tools, instructions, history and storage: features this service does not have. */
function unsupportedField(raw: Fields): { param: string; message: string } | null {
  const { instructions, input, delegation, triggers, store } = raw;
  if (instructions !== undefined && instructions !== null && instructions !== '') {
    return { param: 'session.instructions', message: 'instructions are not supported: the persona is fixed' };
  }
  if (input !== undefined && input !== null && !(Array.isArray(input) && input.length === 0)) {
    return { param: 'session.input', message: 'a starting history (input) is not supported' };
  }
  if (
    delegation !== undefined &&
    delegation !== null &&
    !(isRecord(delegation) && delegation.type === 'client' && Object.keys(delegation).length === 1)
  ) {
    return {
      param: 'session.delegation',
      message: 'only client delegation is supported (tools and delegation are not)',
    };
  }
  if (triggers !== undefined && triggers !== null && !(Array.isArray(triggers) && triggers.length === 0)) {
    return { param: 'session.triggers', message: 'decision triggers are not supported' };
  }
  if (store !== undefined && store !== null && store !== false) {
    return { param: 'session.store', message: 'stored sessions are not supported' };
  }
  return null;
}
