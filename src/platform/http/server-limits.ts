/**
 * How long the HTTP server waits on a client, and how long it keeps a connection. Every answer here is
 * a small JSON body (1 MiB at most), so a client that is still sending after these is not a client:
 * - headers within HTTP_HEADERS_TIMEOUT_SECONDS (10 s by default; any real client sends them in one
 *   packet, and 10 s leaves room for retransmissions on a bad link);
 * - the whole request within HTTP_REQUEST_TIMEOUT_SECONDS (30 s by default: the largest body, 1 MiB,
 *   at ~300 kbit/s). Node checks both every CHECK_INTERVAL_MS, so a slow body is cut within 31 s.
 * Neither applies once a request has been read: a WebSocket, upgraded, leaves the HTTP parser, and an
 * NDJSON usage stream is a response that may run as long as it has rows.
 */
export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** How often Node looks for requests past their timeouts (its default, 30 s, would double them). */
const CHECK_INTERVAL_MS = 1_000;
/**
 * Idle keep-alive connections are closed after 72 s: longer than the idle timeouts of the common load
 * balancers (60 s), which must close first or a request can race the close and get a 502.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** A connection serves this many requests, then closes: clients spread again across replicas that scaled out. */
const MAX_REQUESTS_PER_SOCKET = 1_000;

/** Fastify's options for these limits (the Node server options go to http(s).createServer through it). */
export function serverLimitOptions(limits: ServerLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    maxRequestsPerSocket: MAX_REQUESTS_PER_SOCKET,
    nodeServer: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: CHECK_INTERVAL_MS },
  };
}
