import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './openapi.generated.js';

/**
 * Types are taken from `paths` (routes and status codes), never from schema names, so they survive a
 * renaming of the document's components.
 */
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Post<P extends keyof paths> = paths[P] extends { post: infer O } ? O : never;
type Get<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;

export type ClientSecretRequest = JsonOf<NonNullable<Post<'/v1/live/client_secrets'>['requestBody']>>;
export type ClientSecretResponse = JsonOf<Post<'/v1/live/client_secrets'>['responses'][200]>;
export type RealtimeClientSecretRequest = JsonOf<NonNullable<Post<'/v1/realtime/client_secrets'>['requestBody']>>;
export type RealtimeClientSecretResponse = JsonOf<Post<'/v1/realtime/client_secrets'>['responses'][200]>;
export type ModelList = JsonOf<Get<'/v1/models'>['responses'][200]>;
export type Model = ModelList['data'][number];
export type Project = JsonOf<Get<'/v1/project'>['responses'][200]>;
export type SessionList = JsonOf<Get<'/v1/sessions'>['responses'][200]>;
export type Session = JsonOf<Get<'/v1/sessions/{session_id}'>['responses'][200]>;
export type UsageReport = JsonOf<Get<'/v1/usage'>['responses'][200]>;
export type UsageExport = JsonOf<Get<'/v1/usage/export'>['responses'][200]>;
/** The body every refusal carries (`{ error: { code, message, … } }`). */
export type ErrorEnvelope = JsonOf<Post<'/v1/live/client_secrets'>['responses'][401]>;
export type ValidationErrorBody = JsonOf<Post<'/v1/live/client_secrets'>['responses'][422]>;

export type ContinuumRestClient = Client<paths>;

export interface RestClientOptions {
  /** The service's origin, e.g. `https://speech.example.com` (paths already start with `/v1`). */
  baseUrl: string;
  /** An API key (`wk_…`), sent as `Authorization: Bearer`. Keep it on servers. */
  apiKey?: string;
  fetch?: (input: Request) => Promise<Response>;
}

/** A typed fetch client over the service's `paths` (openapi-fetch): `client.GET('/v1/models')`. */
export function createRestClient(options: RestClientOptions): ContinuumRestClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: options.fetch });
  if (options.apiKey) client.use(bearer(options.apiKey));
  return client;
}

function bearer(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${apiKey}`);
      return request;
    },
  };
}

/** A refusal from the REST API, with the envelope's fields and the `Retry-After` the service sent. */
export class ContinuumApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null,
    readonly retryAfterMs: number | null,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ContinuumApiError';
  }

  static from(response: Response, body: unknown): ContinuumApiError {
    const error = (body as { error?: { code?: unknown; message?: unknown; param?: unknown } } | null)?.error;
    if (error && typeof error.code === 'string') {
      const retry = (error as { retry_after_ms?: unknown }).retry_after_ms;
      return new ContinuumApiError(
        response.status,
        error.code,
        typeof error.message === 'string' ? error.message : error.code,
        typeof error.param === 'string' ? error.param : null,
        typeof retry === 'number' ? retry : retryAfterHeader(response),
        body,
      );
    }
    if (response.status === 422)
      return new ContinuumApiError(422, 'validation_error', describe422(body), null, null, body);
    return new ContinuumApiError(response.status, `http_${response.status}`, response.statusText, null, null, body);
  }
}

function retryAfterHeader(response: Response): number | null {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}

function describe422(body: unknown): string {
  const detail = (body as { detail?: { loc?: unknown[]; msg?: string }[] } | null)?.detail;
  if (!Array.isArray(detail) || !detail.length) return 'Validation error';
  return detail.map((d) => `${(d.loc ?? []).join('.')}: ${d.msg ?? ''}`).join('; ');
}

/** openapi-fetch's result, narrowed: the data on success, a ContinuumApiError otherwise. */
export async function unwrap<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok && error === undefined) return data as T;
  throw ContinuumApiError.from(response, error ?? null);
}

/** A client secret for a voice agent on `/v1/realtime` (`session.type: "realtime"`, the GA shape). */
export function createRealtimeClientSecret(
  client: ContinuumRestClient,
  body: RealtimeClientSecretRequest = {},
): Promise<RealtimeClientSecretResponse> {
  return unwrap(client.POST('/v1/realtime/client_secrets', { body }));
}

/** Mints a client secret for a browser: the one call a page's backend makes with its API key. */
export function createClientSecret(
  client: ContinuumRestClient,
  body: ClientSecretRequest = {},
): Promise<ClientSecretResponse> {
  return unwrap(client.POST('/v1/live/client_secrets', { body }));
}

export type Transcription = JsonOf<Post<'/v1/audio/transcriptions'>['responses'][200]>;

export interface TranscribeOptions {
  /** Default `vendor-asr-streaming`; OpenAI's names (`whisper-1`…) are served by it too. */
  model?: string;
  /** ISO-639-1; absent: auto. */
  language?: string;
  /** `json` (text and usage) or `verbose_json` (segments, and words when asked for). */
  responseFormat?: 'json' | 'verbose_json';
  timestampGranularities?: Array<'segment' | 'word'>;
  signal?: AbortSignal;
}

/**
 * Transcribes a whole file (`POST /v1/audio/transcriptions`, a batch session billed by the audio's
 * duration): WAV, MP3, FLAC, Ogg, WebM or M4A up to 25 MB. Needs an API key: run it on a server, or in
 * a page whose user owns the key (the playground).
 */
export function transcribeFile(
  client: ContinuumRestClient,
  file: Blob,
  options: TranscribeOptions = {},
): Promise<Transcription> {
  const form = new FormData();
  form.append('file', file, (file as File).name ?? 'audio');
  if (options.model) form.append('model', options.model);
  if (options.language) form.append('language', options.language);
  form.append('response_format', options.responseFormat ?? 'json');
  for (const granularity of options.timestampGranularities ?? []) form.append('timestamp_granularities[]', granularity);
  // json and verbose_json answer JSON (the document also lists the text formats, which this call does not ask for).
  return unwrap<Transcription>(
    client.POST('/v1/audio/transcriptions', {
      // The form as built: openapi-fetch would otherwise serialise the body as JSON.
      body: form as never,
      bodySerializer: (body: unknown) => body as FormData,
      signal: options.signal,
    }) as Promise<{ data?: Transcription; error?: unknown; response: Response }>,
  );
}
