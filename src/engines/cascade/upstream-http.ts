/**
 * One streamed POST to an OpenAI-compatible upstream (chat completions, audio speech) with Node's
 * own fetch: a bearer key when configured, an inactivity timeout (no response, or no body bytes,
 * for `timeoutMs` fails the request: a server that stalls mid-answer is as dead as one that never
 * answers), and cancellation by AbortSignal. Stopping the iteration early, or aborting, closes the
 * HTTP request, which is how a generation is cancelled upstream.
 */
export type Upstream = 'chat' | 'speech';

export type UpstreamFailure = 'http' | 'timeout' | 'network' | 'protocol';

/** A failed upstream request. The message names no key and no upstream body beyond its error fields. */
export class UpstreamError extends Error {
  constructor(
    readonly upstream: Upstream,
    readonly kind: UpstreamFailure,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

export interface UpstreamRequest {
  upstream: Upstream;
  url: string;
  body: unknown;
  apiKey: string | null;
  timeoutMs: number;
  /** Aborting it cancels the request; the iteration then throws the signal's reason. */
  signal: AbortSignal;
}

/** Error bodies of OpenAI-compatible servers: `{error: {message, type, code}}` (some send a string). */
export function upstreamErrorMessage(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; detail?: unknown };
    const error = parsed.error ?? parsed.detail;
    if (typeof error === 'string') return error.slice(0, 300);
    if (error && typeof error === 'object') {
      const { message, type, code } = error as Record<string, unknown>;
      const label = [type, code].filter((v) => typeof v === 'string' || typeof v === 'number').join('/');
      if (typeof message === 'string') return (label ? `${label}: ${message}` : message).slice(0, 300);
    }
  } catch {
    // not JSON: nothing safe to repeat
  }
  return null;
}

/** Yields the response body's chunks as they arrive. */
export async function* postStream(request: UpstreamRequest): AsyncGenerator<Uint8Array, void, undefined> {
  const { upstream, timeoutMs, signal } = request;
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | null = null;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
  };
  const cancel = () => controller.abort();
  signal.addEventListener('abort', cancel, { once: true });
  const fail = (error: unknown): never => {
    if (signal.aborted) throw signal.reason;
    if (error instanceof UpstreamError) throw error;
    if (timedOut) throw new UpstreamError(upstream, 'timeout', `no answer for ${timeoutMs} ms`);
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new UpstreamError(upstream, 'network', `request failed${cause ? ` (${cause})` : ''}`);
  };
  try {
    signal.throwIfAborted();
    arm();
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(request.body),
        signal: controller.signal,
      });
      if (!response.ok) {
        const detail = upstreamErrorMessage(await response.text());
        throw new UpstreamError(
          upstream,
          'http',
          `HTTP ${response.status}${detail ? `: ${detail}` : ''}`,
          response.status,
        );
      }
      if (!response.body) throw new UpstreamError(upstream, 'protocol', 'the response has no body');
    } catch (error) {
      return fail(error);
    }
    const reader = response.body.getReader();
    try {
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          arm();
          next = await reader.read();
        } catch (error) {
          return fail(error);
        }
        if (next.done) return;
        yield next.value;
      }
    } finally {
      // An early return (the caller stopped reading) must close the request, not leave it running.
      if (!controller.signal.aborted) controller.abort();
      reader.releaseLock();
    }
  } finally {
    if (timer) clearTimeout(timer);
    signal.removeEventListener('abort', cancel);
  }
}
