/**
 * The Realtime `session.update` of a transcription session (GA shape) → a neutral `update` command.
 * Only what is present changes; `null` clears turn detection (manual commits) and noise reduction.
 * Strict like OpenAI about unknown fields and wrong types, so a mistake is not silently ignored;
 * fields the service accepts without acting on them (noise reduction, prompt, include, delay,
 * keywords) are validated and then have no effect, which `session.updated` shows.
 */
import { type SessionCommand, type TurnDetectionConfig, DEFAULT_VAD } from '../../../session-core';
import type { SessionConfigChanges } from '../../../session-core';
import { Fields, isRecord, reject } from '../../connection/client-frames';
import { TRANSCRIPTION_MODEL } from '../../../engines';
import {
  realtimeFormatName,
  REALTIME_FORMATS_SERVED,
  type AudioFormatName,
  type AudioFormats,
} from '../../../platform/audio/audio-format';

/** OpenAI transcription model names that existing clients send: all served by the streaming model. */
export const OPENAI_TRANSCRIPTION_MODELS: ReadonlySet<string> = new Set([
  'whisper-1',
  'gpt-transcribe',
  'gpt-live-transcribe',
  'gpt-4o-transcribe',
  'gpt-4o-transcribe-diarize',
  'gpt-4o-mini-transcribe',
  'gpt-4o-mini-transcribe-2025-12-15',
  'gpt-realtime-whisper',
]);

/**
 * The models OpenAI serves without server turn detection: their clients (LiveKit's OpenAI plugin)
 * leave `turn_detection` out and commit each turn themselves, so naming one turns server VAD off
 * unless the same update asks for it.
 */
export const CLIENT_COMMITTED_MODELS: ReadonlySet<string> = new Set(['gpt-realtime-whisper', 'gpt-live-transcribe']);

/** ISO-639-1 (`en`) or a BCP-47 tag (`en-US`); `auto` is this service's "detect it". */
const LANGUAGE = /^(?:auto|[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*)$/;
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

/** Thrown inside the validation and turned into a `reject` command at its edge. */
class Refusal {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly param: string,
  ) {}
}

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
    if (!(error instanceof Refusal)) throw error;
    return reject(error.code, error.message, error.param, clientEventId);
  }
}

function sessionChanges(raw: unknown): SessionConfigChanges {
  const session = object(raw, 'session', true);
  known(session, SESSION_FIELDS, 'session');
  if (session.type !== undefined && session.type !== 'transcription') {
    throw new Refusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(session.type)}. This socket serves transcription sessions: session.type must be "transcription".`,
      'session.type',
    );
  }
  if (session.include !== undefined && session.include !== null) {
    const include = session.include;
    if (!Array.isArray(include) || include.some((item) => item !== LOGPROBS)) {
      throw new Refusal('invalid_value', `session.include may only hold "${LOGPROBS}"`, 'session.include');
    }
  }
  const audio = object(session.audio, 'session.audio');
  known(audio, AUDIO_FIELDS, 'session.audio');
  const input = object(audio.input, 'session.audio.input');
  known(input, INPUT_FIELDS, 'session.audio.input');
  const format = inputFormat(input.format);
  checkNoiseReduction(input.noise_reduction);
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

/** An absent optional object reads as empty; anything else must be an object. */
function object(value: unknown, param: string, required = false): Fields {
  if (value === undefined && !required) return {};
  if (!isRecord(value)) {
    const kind = value === undefined ? 'missing_required_parameter' : 'invalid_type';
    throw new Refusal(kind, `${param} must be an object`, param);
  }
  return value;
}

function known(fields: Fields, allowed: ReadonlySet<string>, prefix: string): void {
  for (const key of Object.keys(fields)) {
    if (!allowed.has(key))
      throw new Refusal('unknown_parameter', `Unknown parameter: '${prefix}.${key}'.`, `${prefix}.${key}`);
  }
}

function inputFormat(format: unknown): AudioFormatName | undefined {
  if (format === undefined || format === null) return undefined;
  const name = realtimeFormatName(format);
  if (name === null) {
    throw new Refusal(
      'unsupported_audio_format',
      `session.audio.input.format: ${REALTIME_FORMATS_SERVED} is served`,
      'session.audio.input.format',
    );
  }
  return name;
}

function checkNoiseReduction(value: unknown): void {
  if (value === undefined || value === null) return;
  const param = 'session.audio.input.noise_reduction';
  if (!isRecord(value)) throw new Refusal('invalid_type', `${param} must be an object or null`, param);
  known(value, new Set(['type', 'strength']), param);
  if (value.type !== undefined && value.type !== 'near_field' && value.type !== 'far_field') {
    throw new Refusal('invalid_value', `${param}.type must be "near_field" or "far_field"`, `${param}.type`);
  }
  if (value.strength !== undefined && typeof value.strength !== 'number') {
    throw new Refusal('invalid_type', `${param}.strength must be a number`, `${param}.strength`);
  }
}

/** The language to change to, or undefined when the update leaves it alone. */
function transcriptionLanguage(value: unknown): string | undefined {
  const prefix = 'session.audio.input.transcription';
  if (value === undefined || value === null) return undefined;
  const transcription = object(value, prefix);
  known(transcription, TRANSCRIPTION_FIELDS, prefix);
  const { model, language, prompt, delay, keywords, languages } = transcription;
  if (model !== undefined && (typeof model !== 'string' || !isServedModel(model))) {
    throw new Refusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(model)}. The transcription model is ${TRANSCRIPTION_MODEL} (OpenAI transcription model names are accepted for it).`,
      `${prefix}.model`,
    );
  }
  if (prompt !== undefined && typeof prompt !== 'string') {
    throw new Refusal('invalid_type', `${prefix}.prompt must be a string`, `${prefix}.prompt`);
  }
  if (delay !== undefined && (typeof delay !== 'string' || !DELAYS.has(delay))) {
    throw new Refusal('invalid_value', `${prefix}.delay must be one of ${[...DELAYS].join(', ')}`, `${prefix}.delay`);
  }
  for (const [name, list] of [
    ['keywords', keywords],
    ['languages', languages],
  ] as const) {
    if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))) {
      throw new Refusal('invalid_type', `${prefix}.${name} must be an array of strings`, `${prefix}.${name}`);
    }
  }
  if (language === undefined) return undefined;
  if (language === null) return 'auto';
  if (typeof language !== 'string' || !LANGUAGE.test(language)) {
    throw new Refusal(
      'invalid_value',
      `${prefix}.language must be an ISO-639-1 code such as "en" (leave it out to detect the language)`,
      `${prefix}.language`,
    );
  }
  return language;
}

function turnDetection(value: unknown): TurnDetectionConfig | null {
  const param = 'session.audio.input.turn_detection';
  if (value === null) return null;
  const vad = object(value, param);
  known(vad, VAD_FIELDS, param);
  if (vad.type !== undefined && vad.type !== 'server_vad') {
    throw new Refusal(
      'invalid_value',
      `Invalid value: ${JSON.stringify(vad.type)}. Only server_vad turn detection is supported (or null for manual commits).`,
      `${param}.type`,
    );
  }
  const threshold = number(vad.threshold, `${param}.threshold`, 0, 1) ?? DEFAULT_VAD.threshold;
  const prefixPaddingMs = number(vad.prefix_padding_ms, `${param}.prefix_padding_ms`, 0, 10_000, true);
  const silenceDurationMs = number(vad.silence_duration_ms, `${param}.silence_duration_ms`, 0, 10_000, true);
  if (vad.idle_timeout_ms !== undefined && vad.idle_timeout_ms !== null) {
    number(vad.idle_timeout_ms, `${param}.idle_timeout_ms`, 0, 600_000, true);
  }
  for (const flag of ['create_response', 'interrupt_response'] as const) {
    if (vad[flag] !== undefined && typeof vad[flag] !== 'boolean') {
      throw new Refusal('invalid_type', `${param}.${flag} must be a boolean`, `${param}.${flag}`);
    }
  }
  return {
    type: 'server_vad',
    threshold,
    prefixPaddingMs: prefixPaddingMs ?? DEFAULT_VAD.prefixPaddingMs,
    silenceDurationMs: silenceDurationMs ?? DEFAULT_VAD.silenceDurationMs,
  };
}

function number(value: unknown, param: string, min: number, max: number, integer = false): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new Refusal('invalid_type', `${param} must be ${integer ? 'an integer' : 'a number'}`, param);
  }
  if (value < min || value > max) {
    throw new Refusal('invalid_value', `${param} must be between ${min} and ${max}`, param);
  }
  return value;
}
