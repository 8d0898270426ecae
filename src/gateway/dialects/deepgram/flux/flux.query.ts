/**
 * The query parameters of a Deepgram Flux `/v2/listen` upgrade → what the session serves, checked
 * at the handshake so that a request that cannot be served is an HTTP 400 with a message naming the
 * parameter (the v5 SDK retries closes, not refusals).
 *
 * Served: model (Continuum's transcription models; `flux-general-en` is an alias of the streaming
 * model so that Deepgram code changes only its base URL and key), encoding (linear16), sample_rate
 * (8000–48000, resampled to 24 kHz), eot_threshold (0.5–1, default 0.7), eager_eot_threshold
 * (0.3–0.9, off by default; at most eot_threshold), eot_timeout_ms (500–60000, default 5000).
 * Accepted and not acted on: keyterm (repeatable: the recogniser has no keyword boosting),
 * language_hint, numerals, profanity_filter, redact, tag (Continuum keeps no tags) and mip_opt_out
 * (Continuum never uses audio for training).
 */
import { AppError } from '../../../../platform/errors/app-error';
import { type EndOfTurnSettings, DEFAULT_END_OF_TURN, DEFAULT_VAD, type SessionConfig } from '../../../../session-core';
import { DEFAULT_TRANSCRIPTION_CONFIG, TRANSCRIPTION_MODEL } from '../../../../engines';
import { MAX_SAMPLE_RATE, MIN_SAMPLE_RATE } from '../listen/listen.query';

export const FLUX_MODEL_ALIASES: readonly string[] = ['flux-general-en'];

export const EOT_THRESHOLD = { min: 0.5, max: 1, default: DEFAULT_END_OF_TURN.eotThreshold } as const;
export const EAGER_EOT_THRESHOLD = { min: 0.3, max: 0.9 } as const;
export const EOT_TIMEOUT_MS = { min: 500, max: 60_000, default: DEFAULT_END_OF_TURN.eotTimeoutMs } as const;

export interface FluxOptions {
  readonly sampleRate: number;
  readonly endOfTurn: EndOfTurnSettings;
  readonly keyterms: readonly string[];
}

export function parseFluxQuery(rawUrl: string | undefined): FluxOptions {
  const query = new URL(rawUrl ?? '/', 'http://localhost').searchParams;
  const model = query.get('model');
  if (model === null) throw invalid('model', `model is required: ${TRANSCRIPTION_MODEL} or flux-general-en`);
  if (model !== TRANSCRIPTION_MODEL && !FLUX_MODEL_ALIASES.includes(model)) {
    throw invalid('model', `Unknown model ${JSON.stringify(model)}: use ${TRANSCRIPTION_MODEL} or flux-general-en`);
  }
  const encoding = query.get('encoding');
  if (encoding !== 'linear16') {
    throw invalid(
      'encoding',
      encoding === null
        ? 'encoding=linear16 is required: raw pcm16 little-endian is served, containers are not decoded'
        : `encoding=${encoding} is not served: send raw pcm16 with encoding=linear16`,
    );
  }
  const sampleRate = number(query, 'sample_rate', MIN_SAMPLE_RATE, MAX_SAMPLE_RATE, true);
  if (sampleRate === null) throw invalid('sample_rate', 'sample_rate is required with encoding=linear16');
  const endOfTurn = checkedThresholds({
    eotThreshold: number(query, 'eot_threshold', EOT_THRESHOLD.min, EOT_THRESHOLD.max) ?? EOT_THRESHOLD.default,
    eagerEotThreshold: number(query, 'eager_eot_threshold', EAGER_EOT_THRESHOLD.min, EAGER_EOT_THRESHOLD.max),
    eotTimeoutMs:
      number(query, 'eot_timeout_ms', EOT_TIMEOUT_MS.min, EOT_TIMEOUT_MS.max, true) ?? EOT_TIMEOUT_MS.default,
  });
  const mipOptOut = query.get('mip_opt_out');
  if (mipOptOut !== null && mipOptOut !== 'true' && mipOptOut !== 'false') {
    throw invalid('mip_opt_out', 'mip_opt_out must be true or false');
  }
  return { sampleRate, endOfTurn, keyterms: query.getAll('keyterm') };
}

/** An eager threshold above the end threshold could never fire before the end: refused. */
export function checkedThresholds(settings: EndOfTurnSettings): EndOfTurnSettings {
  if (settings.eagerEotThreshold !== null && settings.eagerEotThreshold > settings.eotThreshold) {
    throw invalid('eager_eot_threshold', 'eager_eot_threshold must not be greater than eot_threshold');
  }
  return settings;
}

/** The session's configuration: turns end on the session's end-of-turn confidence. */
export function fluxConfig(options: FluxOptions, lock: SessionConfig | null): SessionConfig {
  const base = lock ?? DEFAULT_TRANSCRIPTION_CONFIG;
  return { ...base, turnDetection: { ...(base.turnDetection ?? DEFAULT_VAD), endOfTurn: options.endOfTurn } };
}

export function number(query: URLSearchParams, name: string, min: number, max: number, integer = false): number | null {
  const value = query.get(name);
  if (value === null) return null;
  const parsed = (integer ? /^\d+$/ : /^\d+(?:\.\d+)?$/).test(value) ? Number(value) : NaN;
  if (!(parsed >= min && parsed <= max)) {
    throw invalid(
      name,
      `${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, not ${JSON.stringify(value)}`,
    );
  }
  return parsed;
}

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });
