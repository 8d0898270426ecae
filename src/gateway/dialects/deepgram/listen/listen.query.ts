/**
 * The query parameters of a Deepgram `/v1/listen` upgrade → what the session serves. Checked at
 * the handshake, so that a request that cannot be served is an HTTP 400 (the v5 SDK retries
 * closes, not refusals). Booleans are the strings "true"/"false", as Deepgram sends them.
 *
 * Served: encoding (linear16; mulaw and alaw at sample_rate 8000, the phone network's G.711),
 * sample_rate (8000-48000, resampled to 24 kHz), channels (1),
 * language, model, interim_results, punctuate (and smart_format, which implies it), endpointing,
 * utterance_end_ms, vad_events. Every other parameter is accepted and ignored.
 */
import { AppError } from '../../../../platform/errors/app-error';
import { type SessionConfig, type TurnDetectionConfig, DEFAULT_VAD } from '../../../../session-core/index';
import { DEFAULT_TRANSCRIPTION_CONFIG, TRANSCRIPTION_MODEL } from '../../../../engines';
import type { ListenEncoding } from '../shared/deepgram-audio';

export interface ListenOptions {
  readonly encoding: ListenEncoding;
  readonly sampleRate: number;
  /** null when the client did not ask (the secret's, or `auto`). */
  readonly language: string | null;
  readonly interimResults: boolean;
  readonly punctuate: boolean;
  /** ms of silence that end an utterance (speech_final); false: only Finalize/CloseStream end one; null: not given. */
  readonly endpointing: number | false | null;
  readonly utteranceEndMs: number | null;
  readonly vadEvents: boolean;
}

/** Deepgram's documented parameters this service accepts and does not act on (unknown ones are ignored too). */
export const IGNORED_LISTEN_PARAMETERS = [
  'callback',
  'callback_method',
  'detect_entities',
  'diarize',
  'diarize_model',
  'dictation',
  'extra',
  'filler_words',
  'keyterm',
  'keywords',
  'mip_opt_out',
  'multichannel',
  'numerals',
  'profanity_filter',
  'redact',
  'replace',
  'search',
  'tag',
  'version',
] as const;

export const MIN_SAMPLE_RATE = 8000;
export const MAX_SAMPLE_RATE = 48_000;

/** Deepgram's model families (nova-3, nova-2-phonecall, enhanced-general, base, …): all served by the streaming model. */
const DEEPGRAM_MODEL = /^(?:nova|enhanced|base)(?:-[a-z0-9]+)*$/;
/** BCP-47 (`en`, `en-US`); Deepgram's `multi` means "any language", this service's `auto`. */
const LANGUAGE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

export function parseListenQuery(rawUrl: string | undefined): ListenOptions {
  const query = new URL(rawUrl ?? '/', 'http://localhost').searchParams;
  const model = query.get('model');
  if (model !== null && model !== TRANSCRIPTION_MODEL && !DEEPGRAM_MODEL.test(model)) {
    throw invalid(
      'model',
      `Unknown model ${JSON.stringify(model)}: use ${TRANSCRIPTION_MODEL} or a Deepgram model name`,
    );
  }
  const encoding = query.get('encoding');
  if (encoding !== 'linear16' && encoding !== 'mulaw' && encoding !== 'alaw') {
    throw invalid(
      'encoding',
      encoding === null
        ? 'encoding is required: linear16 (raw pcm16 little-endian), mulaw or alaw; containers (wav, webm, ogg) are not decoded'
        : `encoding=${encoding} is not served: send raw pcm16 with encoding=linear16, or G.711 with mulaw or alaw`,
    );
  }
  const sampleRate = integer(query, 'sample_rate', MIN_SAMPLE_RATE, MAX_SAMPLE_RATE);
  if (sampleRate === null) throw invalid('sample_rate', `sample_rate is required with encoding=${encoding}`);
  if (encoding !== 'linear16' && sampleRate !== 8000) {
    throw invalid('sample_rate', `encoding=${encoding} is G.711: sample_rate must be 8000`);
  }
  const channels = query.get('channels');
  if (channels !== null && channels !== '1') {
    throw invalid('channels', 'Only mono audio (channels=1) is served');
  }
  const language = query.get('language');
  if (language !== null && language !== 'multi' && !LANGUAGE.test(language)) {
    throw invalid('language', `language must be a BCP-47 tag such as en or en-US, or multi`);
  }
  const endpointing = query.get('endpointing');
  return {
    encoding,
    sampleRate,
    language: language === null ? null : language === 'multi' ? 'auto' : language,
    interimResults: flag(query, 'interim_results'),
    punctuate: flag(query, 'punctuate') || flag(query, 'smart_format'),
    endpointing: endpointing === 'false' ? false : integer(query, 'endpointing', 10, 10_000),
    utteranceEndMs: integer(query, 'utterance_end_ms', 100, 60_000),
    vadEvents: flag(query, 'vad_events'),
  };
}

/** The session's configuration: the client's endpointing and language over the secret's (or the defaults). */
export function listenConfig(options: ListenOptions, lock: SessionConfig | null): SessionConfig {
  const base = lock ?? DEFAULT_TRANSCRIPTION_CONFIG;
  let turnDetection: TurnDetectionConfig | null = base.turnDetection;
  if (options.endpointing === false) turnDetection = null;
  else if (options.endpointing !== null) {
    turnDetection = { ...(base.turnDetection ?? DEFAULT_VAD), silenceDurationMs: options.endpointing };
  }
  return { ...base, language: options.language ?? base.language, turnDetection };
}

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null || value === 'false') return false;
  if (value === 'true') return true;
  throw invalid(name, `${name} must be true or false`);
}

function integer(query: URLSearchParams, name: string, min: number, max: number): number | null {
  const value = query.get(name);
  if (value === null) return null;
  const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(parsed >= min && parsed <= max)) throw invalid(name, `${name} must be an integer from ${min} to ${max}`);
  return parsed;
}

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });
