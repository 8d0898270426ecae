/**
 * One streamed POST to an OpenAI-compatible upstream (chat completions, audio speech) with Node's
 * own http client: a bearer key when configured, an inactivity timeout (no response, or no body bytes,
 * for `timeoutMs` fails the request: a server that stalls mid-answer is as dead as one that never
 * answers), and cancellation by AbortSignal. Stopping the iteration early, or aborting, closes the
 * HTTP request, which is how a generation is cancelled upstream.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

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

/**
 * Keep-alive connections per upstream origin. Idle ones are closed after 4 s, before the 5 s that
 * uvicorn (speaches, Kokoro-FastAPI) and Node servers keep them (a server announcing less in its
 * `Keep-Alive` header is believed): reusing one the server is closing fails the turn. No Nagle
 * delay: a request's head and body must not wait for an ACK.
 */
const AGENT_OPTIONS = { keepAlive: true, timeout: 4000, noDelay: true };
const agents = { 'http:': new HttpAgent(AGENT_OPTIONS), 'https:': new HttpsAgent(AGENT_OPTIONS) };

/**
 * Yields the response body's chunks as they arrive. node:http rather than fetch: on the path from
 * a chat answer to the speech request fetch's WHATWG streams cost about 0.6 ms per request and
 * 0.3 ms to the first body chunk at the median on the 2-core machine, several ms at p95 (one
 * answer makes two requests before its first audio); the session layer's whole budget is 20 ms.
 */
export async function* postStream(request: UpstreamRequest): AsyncGenerator<Uint8Array, void, undefined> {
  const { upstream, timeoutMs, signal } = request;
  let timedOut = false;
  let timer: NodeJS.Timeout | null = null;
  const sent: { req: ClientRequest | null } = { req: null };
  const stop = () => sent.req?.destroy(new Error('request closed by the client'));
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
  };
  signal.addEventListener('abort', stop, { once: true });
  const fail = (error: unknown): never => {
    if (signal.aborted) throw signal.reason;
    if (error instanceof UpstreamError) throw error;
    if (timedOut) throw new UpstreamError(upstream, 'timeout', `no answer for ${timeoutMs} ms`);
    const cause = (error as NodeJS.ErrnoException | undefined)?.code;
    throw new UpstreamError(upstream, 'network', `request failed${cause ? ` (${cause})` : ''}`);
  };
  let response: IncomingMessage | null = null;
  try {
    signal.throwIfAborted();
    arm();
    try {
      response = await send(request, (req) => (sent.req = req));
      if (response.statusCode === undefined || response.statusCode < 200 || response.statusCode > 299) {
        const status = response.statusCode ?? 0;
        const detail = upstreamErrorMessage(await readText(response));
        throw new UpstreamError(upstream, 'http', `HTTP ${status}${detail ? `: ${detail}` : ''}`, status);
      }
    } catch (error) {
      return fail(error);
    }
    const chunks = response[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        arm();
        next = await chunks.next();
      } catch (error) {
        return fail(error);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (timer) clearTimeout(timer);
    signal.removeEventListener('abort', stop);
    // An early return (the caller stopped reading) must close the request, not leave it running;
    // a response read to its end leaves the connection to the next request.
    if (response?.complete !== true) sent.req?.destroy();
  }
}

/** Sends the POST; resolves with the response head. */
function send(request: UpstreamRequest, started: (req: ClientRequest) => void): Promise<IncomingMessage> {
  const url = new URL(request.url);
  const agent = url.protocol === 'https:' ? agents['https:'] : url.protocol === 'http:' ? agents['http:'] : null;
  if (agent === null) return Promise.reject(new Error(`unsupported protocol ${url.protocol}`));
  const body = Buffer.from(JSON.stringify(request.body));
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': body.length,
  };
  if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
  return new Promise((resolve, reject) => {
    const post = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = post(url, { method: 'POST', headers, agent }, resolve);
    // Errors after the head reach the body's reader; this one must not be left unhandled.
    req.on('error', reject);
    started(req);
    req.end(body);
  });
}

async function readText(response: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of response as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts).toString('utf8');
}
