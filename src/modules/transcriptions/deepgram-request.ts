/**
 * The query of Deepgram's prerecorded `POST /v1/listen` → what the service does with it. The live
 * socket's parameters where they apply (model, language, punctuate, smart_format) and the
 * prerecorded ones (`utterances`; `encoding=linear16` with `sample_rate` and `channels` for a
 * headerless body). `callback` is refused: it would make the service POST to a client's URL. Other
 * Deepgram parameters (diarize, keyterm, redact, detect_language…) are accepted and change nothing.
 */
import { AppError } from '../../platform/errors/app-error';

export interface DeepgramListenRequest {
  model: string | undefined;
  language: string | null;
  punctuate: boolean;
  utterances: boolean;
  /** A headerless pcm16 body (`encoding=linear16`); null: a container, read from its bytes. */
  rawPcm: { sampleRate: number; channels: number } | null;
}

const LANGUAGE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;
const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });

export function parseListenQuery(query: Record<string, unknown>): DeepgramListenRequest {
  const one = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw invalid(name, `${name} was given more than once`);
    return value;
  };
  const flag = (name: string): boolean => {
    const value = one(name);
    if (value === undefined || value === 'false') return false;
    if (value === 'true') return true;
    throw invalid(name, `${name} must be true or false`);
  };
  const integer = (name: string, min: number, max: number): number | null => {
    const value = one(name);
    if (value === undefined) return null;
    const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(parsed >= min && parsed <= max)) throw invalid(name, `${name} must be an integer from ${min} to ${max}`);
    return parsed;
  };
  if (one('callback') !== undefined) {
    throw invalid('callback', 'callback is not served: the result is the answer to this request');
  }
  const language = one('language') ?? null;
  if (language !== null && language !== 'multi' && !LANGUAGE.test(language)) {
    throw invalid('language', 'language must be a BCP-47 tag such as en or en-US, or multi');
  }
  const encoding = one('encoding');
  if (encoding !== undefined && encoding !== 'linear16') {
    throw invalid(
      'encoding',
      `encoding=${encoding} is not served: send a container (WAV, MP3, FLAC, Ogg, WebM, M4A) or linear16`,
    );
  }
  const sampleRate = integer('sample_rate', 8000, 48_000);
  const channels = integer('channels', 1, 8) ?? 1;
  if (encoding === 'linear16' && sampleRate === null) {
    throw invalid('sample_rate', 'sample_rate is required with encoding=linear16');
  }
  return {
    model: one('model'),
    language: language === 'multi' ? null : language,
    punctuate: flag('punctuate') || flag('smart_format'),
    utterances: flag('utterances'),
    rawPcm: encoding === 'linear16' ? { sampleRate: sampleRate!, channels } : null,
  };
}
