/**
 * The Realtime `session.update` of a transcription session (GA shape) → a neutral `update` command.
 * Only what is present changes; `null` clears turn detection (manual commits) and noise reduction.
 * Strict like OpenAI about unknown fields and wrong types, so a mistake is not silently ignored;
 * fields the service accepts without acting on them (noise reduction, prompt, include, delay,
 * keywords) are validated and then have no effect, which `session.updated` shows.
 */
import {
  bounded,
  checkFormat,
  checkLanguage,
  checkNoiseReduction,
  DEFAULT_VAD,
  known,
  object,
  SettingRefusal,
  VAD_BOUNDS,
  type SessionCommand,
  type SessionConfigChanges,
  type TurnDetectionConfig,
} from '../../../session-core';
import { isRecord, reject } from '../../connection/client-frames';
import { TRANSCRIPTION_MODEL } from '../../../engines';
import type { AudioFormats } from '../../../platform/audio/audio-format';

export { OPENAI_TRANSCRIPTION_MODELS } from '../../../session-core';
import { OPENAI_TRANSCRIPTION_MODELS } from '../../../session-core';

/**
 * The models OpenAI serves without server turn detection: their clients (LiveKit's OpenAI plugin)
 * leave `turn_detection` out and commit each turn themselves, so naming one turns server VAD off
 * unless the same update asks for it.
 */
export const CLIENT_COMMITTED_MODELS: ReadonlySet<string> = new Set(['gpt-realtime-whisper', 'gpt-live-transcribe']);

const SESSION_FIELDS = new Set(['type', 'audio', 'include']);
const AUDIO_FIELDS = new Set(['input']);
const INPUT_FIELDS = new Set(['format', 'noise_reduction', 'transcription', 'turn_detection']);
const TRANSCRIPTION_FIELDS = new Set(['model', 'language', 'prompt', 'delay', 'keywords', 'languages']);
const VAD_FIELDS = new Set([
  'type',
  'threshold',
  'prefix_padding_ms',
  'silence_duration_ms',
  'idle_timeout_ms',
  'create_response',
  'interrupt_response',
]);
const DELAYS = new Set(['minimal', 'low', 'medium', 'high', 'xhigh']);
const LOGPROBS = 'item.input_audio_transcription.logprobs';

export function isServedModel(model: string): boolean {
  return model === TRANSCRIPTION_MODEL || OPENAI_TRANSCRIPTION_MODELS.has(model);
}

export function resolveSessionUpdate(raw: unknown, clientEventId: string | undefined): SessionCommand {
  try {
    const changes = sessionChanges(raw);
    // The first engine setting named is the one a refusal after the first audio points at.
    const param =
      changes.turnDetection !== undefined
        ? 'session.audio.input.turn_detection'
        : 'session.audio.input.transcription.language';
    const command = { type: 'update' as const, changes, param };
    return clientEventId === undefined ? command : { ...command, clientEventId };
  } catch (error) {
    if (!(error instanceof SettingRefusal)) throw error;
    return reject(error.code, error.message, error.param, clientEventId);
  }
}

function sessionChanges(raw: unknown): SessionConfigChanges {
  const session = object(raw, 'session', true);
  known(session, SESSION_FIELDS, 'session');
  if (session.type !== undefined && session.type !== 'transcription') {
    throw new SettingRefusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(session.type)}. This socket serves transcription sessions: session.type must be "transcription".`,
      'session.type',
    );
  }
  if (session.include !== undefined && session.include !== null) {
    const include = session.include;
    if (!Array.isArray(include) || include.some((item) => item !== LOGPROBS)) {
      throw new SettingRefusal('invalid_value', `session.include may only hold "${LOGPROBS}"`, 'session.include');
    }
  }
  const audio = object(session.audio, 'session.audio');
  known(audio, AUDIO_FIELDS, 'session.audio');
  const input = object(audio.input, 'session.audio.input');
  known(input, INPUT_FIELDS, 'session.audio.input');
  const format = checkFormat(input.format, 'session.audio.input.format');
  checkNoiseReduction(input.noise_reduction, 'session.audio.input.noise_reduction');
  const changes: { language?: string; turnDetection?: TurnDetectionConfig | null; audioFormats?: AudioFormats } = {};
  if (format !== undefined) changes.audioFormats = { input: format, output: 'pcm16' };
  const language = transcriptionLanguage(input.transcription);
  if (language !== undefined) changes.language = language;
  if (input.turn_detection !== undefined) changes.turnDetection = turnDetection(input.turn_detection);
  else if (isRecord(input.transcription) && CLIENT_COMMITTED_MODELS.has(input.transcription.model as string)) {
    changes.turnDetection = null;
  }
  return changes;
}

/** The language to change to, or undefined when the update leaves it alone. */
function transcriptionLanguage(value: unknown): string | undefined {
  const prefix = 'session.audio.input.transcription';
  if (value === undefined || value === null) return undefined;
  const transcription = object(value, prefix);
  known(transcription, TRANSCRIPTION_FIELDS, prefix);
  const { model, language, prompt, delay, keywords, languages } = transcription;
  if (model !== undefined && (typeof model !== 'string' || !isServedModel(model))) {
    throw new SettingRefusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(model)}. The transcription model is ${TRANSCRIPTION_MODEL} (OpenAI transcription model names are accepted for it).`,
      `${prefix}.model`,
    );
  }
  if (prompt !== undefined && typeof prompt !== 'string') {
    throw new SettingRefusal('invalid_type', `${prefix}.prompt must be a string`, `${prefix}.prompt`);
  }
  if (delay !== undefined && (typeof delay !== 'string' || !DELAYS.has(delay))) {
    throw new SettingRefusal(
      'invalid_value',
      `${prefix}.delay must be one of ${[...DELAYS].join(', ')}`,
      `${prefix}.delay`,
    );
  }
  for (const [name, list] of [
    ['keywords', keywords],
    ['languages', languages],
  ] as const) {
    if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))) {
      throw new SettingRefusal('invalid_type', `${prefix}.${name} must be an array of strings`, `${prefix}.${name}`);
    }
  }
  return checkLanguage(language, `${prefix}.language`);
}

function turnDetection(value: unknown): TurnDetectionConfig | null {
  const param = 'session.audio.input.turn_detection';
  if (value === null) return null;
  const vad = object(value, param);
  known(vad, VAD_FIELDS, param);
  if (vad.type !== undefined && vad.type !== 'server_vad') {
    throw new SettingRefusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(vad.type)}. Only server_vad turn detection is supported (or null for manual commits).`,
      `${param}.type`,
    );
  }
  const threshold = bounded(vad.threshold, `${param}.threshold`, VAD_BOUNDS.threshold) ?? DEFAULT_VAD.threshold;
  const prefixPaddingMs = bounded(vad.prefix_padding_ms, `${param}.prefix_padding_ms`, VAD_BOUNDS.prefixPaddingMs);
  const silenceDurationMs = bounded(
    vad.silence_duration_ms,
    `${param}.silence_duration_ms`,
    VAD_BOUNDS.silenceDurationMs,
  );
  if (vad.idle_timeout_ms !== undefined && vad.idle_timeout_ms !== null) {
    bounded(vad.idle_timeout_ms, `${param}.idle_timeout_ms`, { min: 0, max: 600_000, integer: true });
  }
  for (const flag of ['create_response', 'interrupt_response'] as const) {
    if (vad[flag] !== undefined && typeof vad[flag] !== 'boolean') {
      throw new SettingRefusal('invalid_type', `${param}.${flag} must be a boolean`, `${param}.${flag}`);
    }
  }
  return {
    type: 'server_vad',
    threshold,
    prefixPaddingMs: prefixPaddingMs ?? DEFAULT_VAD.prefixPaddingMs,
    silenceDurationMs: silenceDurationMs ?? DEFAULT_VAD.silenceDurationMs,
  };
}
