/**
 * The rules of what a client may configure, wherever it configures it (a REST session or client
 * secret, a socket's session.update or query): bounds, served values and defaults. The REST DTOs
 * take their bounds from here; the dialects' parsers name the fields and call these checks.
 */
import type { EndOfTurnSettings } from '../engine/engine.port';
import { DEFAULT_END_OF_TURN, VOICE } from '../model/defaults';
import { SAMPLE_RATE } from '../engine/engine.port';
import { type Bounds, bounded, isRecord, known, SettingRefusal } from './setting-refusal';

/**
 * The audio formats served, by their Realtime name: one line each. Today pcm16 mono at the
 * session's rate.
 */
import { realtimeFormatName, REALTIME_FORMATS_SERVED, type AudioFormatName } from '../../platform/audio/audio-format';

export const AUDIO_FORMATS: Readonly<Record<string, { readonly rate: number }>> = {
  'audio/pcm': { rate: SAMPLE_RATE },
};

/** server_vad's fields (OpenAI's ranges: prefix padding and silence up to 10 s). */
export const VAD_BOUNDS = {
  threshold: { min: 0, max: 1 },
  prefixPaddingMs: { min: 0, max: 10_000, integer: true },
  silenceDurationMs: { min: 0, max: 10_000, integer: true },
} as const satisfies Record<string, Bounds>;

/**
 * This service's own sessions (POST /v1/sessions, /v1/live): its documented server_vad ranges, the
 * same threshold, a shorter padding, and no silence under 100 ms.
 */
export const LIVE_VAD_BOUNDS = {
  threshold: VAD_BOUNDS.threshold,
  prefixPaddingMs: { min: 0, max: 5000, integer: true },
  silenceDurationMs: { min: 100, max: 10_000, integer: true },
} as const satisfies Record<string, Bounds>;

/** A conversation's `idle_timeout_ms` (OpenAI's range). */
export const IDLE_TIMEOUT_MS = { min: 5000, max: 30_000, integer: true } as const satisfies Bounds;

/** Live sessions' end-of-turn confidence (docs/api.md). */
export const END_OF_TURN_BOUNDS = {
  eotThreshold: { min: 0.5, max: 1 },
  eagerEotThreshold: { min: 0.3, max: 0.9 },
  eotTimeoutMs: { min: 500, max: 60_000, integer: true },
} as const satisfies Record<string, Bounds>;

/**
 * semantic_vad's eagerness → the end-of-turn model's thresholds: `low` waits for a surer end (and
 * longer silence), `high` answers sooner; `auto` and `medium` are the live default.
 */
export const EAGERNESS: Readonly<Record<string, EndOfTurnSettings>> = {
  low: { eotThreshold: 0.85, eagerEotThreshold: 0.5, eotTimeoutMs: 8000 },
  medium: DEFAULT_END_OF_TURN,
  auto: DEFAULT_END_OF_TURN,
  high: { eotThreshold: 0.55, eagerEotThreshold: 0.3, eotTimeoutMs: 2500 },
};

/** Accepted for compatibility; no noise reduction is applied. */
export const NOISE_REDUCTION = {
  types: ['near_field', 'far_field'] as const,
  strength: { min: 0, max: 1 } as Bounds,
};

/** ISO-639-1 (`en`) or a BCP-47 tag (`en-US`); `auto` is this service's "detect it". */
export const LANGUAGE_TAG = /^(auto|[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*)$/;
export const LANGUAGE_MAX_LENGTH = 35;

/**
 * OpenAI transcription model names that existing clients send: the session's own recogniser serves
 * each (it is the engines' to say which model that is).
 */
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

/** Output speeds served: the speech server's speed is the operator's setting. */
export const OUTPUT_SPEEDS: readonly number[] = [1];

export const TEXT_LIMITS = {
  /** Instructions, tool descriptions and item text: generous, but bounded. */
  text: 100_000,
  tools: 128,
} as const;
export const MAX_OUTPUT_TOKENS = { min: 1, max: 4096, integer: true } as const satisfies Bounds;

/**
 * A Realtime audio format (GA objects or the older names, G.711 included: platform/audio/audio-format.ts)
 * → its name; undefined when absent. The live protocol keeps pcm16 at 24 kHz (live.start.ts).
 */
export function checkFormat(value: unknown, param: string): AudioFormatName | undefined {
  if (value === undefined || value === null) return undefined;
  const name = realtimeFormatName(value);
  if (name === null)
    throw new SettingRefusal('unsupported_audio_format', `${param}: ${REALTIME_FORMATS_SERVED} is served`, param);
  return name;
}

export function checkNoiseReduction(value: unknown, param: string): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) throw new SettingRefusal('invalid_type', `${param} must be an object or null`, param);
  known(value, new Set(['type', 'strength']), param);
  if (value.type !== undefined && !(NOISE_REDUCTION.types as readonly unknown[]).includes(value.type)) {
    const types = NOISE_REDUCTION.types.map((type) => `"${type}"`).join(' or ');
    throw new SettingRefusal('invalid_value', `${param}.type must be ${types}`, `${param}.type`);
  }
  bounded(value.strength, `${param}.strength`, NOISE_REDUCTION.strength);
}

/** A language tag, or undefined; null reads as `auto` (detect). */
export function checkLanguage(value: unknown, param: string): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return 'auto';
  if (typeof value !== 'string' || value.length > LANGUAGE_MAX_LENGTH || !LANGUAGE_TAG.test(value)) {
    throw new SettingRefusal(
      'invalid_value',
      `${param} must be an ISO-639-1 code such as "en" (leave it out to detect the language)`,
      param,
    );
  }
  return value;
}

export function checkVoice(value: unknown, param: string): string | undefined {
  if (value === undefined) return undefined;
  if (value !== VOICE) throw new SettingRefusal('invalid_value', `${param}: the one voice is "${VOICE}"`, param);
  return VOICE;
}

export function checkSpeed(value: unknown, param: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number') throw new SettingRefusal('invalid_type', `${param} must be a number`, param);
  if (!OUTPUT_SPEEDS.includes(value)) {
    throw new SettingRefusal(
      'unsupported_parameter',
      `${param}: only ${OUTPUT_SPEEDS.join(', ')} is served (the speech server's speed is the operator's setting)`,
      param,
    );
  }
}
