/**
 * Node-only entry (`@continuum/client/node`): live sessions opened with an API key in the
 * `Authorization` header, through the `ws` package. Keep API keys on servers.
 */
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { LiveSessionConfig } from '../../protocol/live-events.js';
import { LIVE_PATH } from '../../protocol/live-events.js';
import type { LiveSession, LiveSessionOptions, WebSocketLike } from './live/live-session.js';
import { startLiveSession } from './live/live-session.js';
import type { HandshakeError } from './live/session-end.js';

export * from './index.js';

export interface ApiKeyConnectOptions extends Omit<LiveSessionOptions, 'handshakeRefusal'> {
  /** The service's origin (`https://…`; `http://` for a local one). */
  baseUrl: string;
  apiKey: string;
  session: LiveSessionConfig;
}

/** Opens a live session with an API key; a refused handshake ends as `not_opened` with its status. */
export function connectWithApiKey(options: ApiKeyConnectOptions): Promise<LiveSession> {
  const url = new URL(LIVE_PATH, options.baseUrl.replace(/^http/, 'ws'));
  const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${options.apiKey}` } });
  let refusal: { status: number; error: HandshakeError | null } | null = null;
  socket.once('unexpected-response', (_request, response: IncomingMessage) => {
    let text = '';
    response.on('data', (chunk: Buffer) => (text += chunk.toString()));
    response.on('end', () => {
      refusal = { status: response.statusCode ?? 0, error: parseError(text) };
      socket.terminate(); // ws waits for this before it reports the close
    });
  });
  return startLiveSession(socket as unknown as WebSocketLike, options.session, {
    ...options,
    handshakeRefusal: () => refusal,
  });
}

function parseError(text: string): HandshakeError | null {
  try {
    const error = (JSON.parse(text) as { error?: HandshakeError }).error;
    return error && typeof error.code === 'string' ? error : null;
  } catch {
    return null;
  }
}
