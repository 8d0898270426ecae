/**
 * The form fields of OpenAI's `POST /v1/audio/transcriptions` → what the service does with them.
 * Strict like OpenAI about wrong values and unknown fields; fields that change nothing here
 * (temperature, logprobs, chunking, context hints) are validated and ignored (docs/api.md). The prompt
 * goes to an engine that forwards files to an upstream, and is ignored by the others.
 */
import { AppError } from '../../platform/errors/app-error';
import { type Granularity, RESPONSE_FORMATS, type ResponseFormat } from './render/openai-formats';

export interface OpenAiTranscriptionRequest {
  model: string | undefined;
  language: string | null;
  responseFormat: ResponseFormat;
  granularities: Granularity[];
  stream: boolean;
  prompt: string | null;
}

const IGNORED = new Set([
  'temperature',
  'include',
  'include[]',
  'chunking_strategy',
  'keywords',
  'keywords[]',
  'known_speaker_names',
  'known_speaker_names[]',
  'known_speaker_references',
  'known_speaker_references[]',
]);
const LANGUAGE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

const invalid = (param: string, message: string) => new AppError('invalid_parameter', message, { param });

export function parseOpenAiFields(fields: Map<string, string[]>): OpenAiTranscriptionRequest {
  const one = (name: string): string | undefined => {
    const values = fields.get(name);
    if (values === undefined) return undefined;
    if (values.length > 1) throw invalid(name, `${name} was given ${values.length} times`);
    return values[0];
  };
  for (const name of fields.keys()) {
    const known = ['model', 'language', 'languages', 'languages[]', 'response_format', 'stream', 'prompt'];
    if (!known.includes(name) && !IGNORED.has(name) && !name.startsWith('timestamp_granularities')) {
      throw invalid(name, `Unrecognized request argument supplied: ${name}`);
    }
  }
  const model = one('model');
  // LiveKit's plugin sends `languages[]` (context hints) to the newest models: the first one decides.
  const language = one('language') ?? (fields.get('languages[]') ?? fields.get('languages'))?.[0] ?? null;
  if (language !== null && language !== '' && !LANGUAGE.test(language)) {
    throw invalid('language', 'language must be an ISO-639-1 code such as en');
  }
  const format = one('response_format') ?? 'json';
  if (!(RESPONSE_FORMATS as readonly string[]).includes(format)) {
    throw invalid('response_format', `response_format must be one of ${RESPONSE_FORMATS.join(', ')}`);
  }
  const granularities = [
    ...(fields.get('timestamp_granularities[]') ?? []),
    ...(fields.get('timestamp_granularities') ?? []),
  ];
  for (const g of granularities) {
    if (g !== 'segment' && g !== 'word') {
      throw invalid('timestamp_granularities[]', 'timestamp_granularities[] must be segment or word');
    }
  }
  if (granularities.length > 0 && format !== 'verbose_json') {
    throw invalid('timestamp_granularities[]', 'timestamp_granularities[] requires response_format verbose_json');
  }
  const temperature = one('temperature');
  if (temperature !== undefined && !(Number(temperature) >= 0 && Number(temperature) <= 1)) {
    throw invalid('temperature', 'temperature must be a number from 0 to 1');
  }
  const streamField = one('stream');
  if (streamField !== undefined && streamField !== 'true' && streamField !== 'false') {
    throw invalid('stream', 'stream must be true or false');
  }
  const stream = streamField === 'true';
  if (stream && format !== 'json' && format !== 'text') {
    throw invalid('stream', 'stream=true is served with response_format json or text');
  }
  return {
    model,
    language: language === '' ? null : language,
    responseFormat: format as ResponseFormat,
    granularities: granularities as Granularity[],
    stream,
    prompt: one('prompt') || null,
  };
}
