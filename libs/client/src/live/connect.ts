import type { LiveSessionConfig } from '../../../protocol/live-events.js';
import { LiveSession, LiveSessionOptions, startLiveSession, WebSocketLike } from './live-session.js';

export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export interface SecretConnectOptions extends LiveSessionOptions {
  /** `session.live_url` of the client secret's response. */
  liveUrl: string;
  /** The client secret (`ek_…`): it opens exactly one session. */
  clientSecret: string;
  /** `session.start`'s configuration; it must agree with the secret's (model, output). */
  session: LiveSessionConfig;
  /** Defaults to the global `WebSocket` (browsers, Node 22+); pass `ws`'s elsewhere. */
  WebSocket?: WebSocketConstructor;
}

/** The socket address a browser opens: `<live_url>?token=<secret>` (browsers cannot set headers). */
export function liveUrlWithSecret(liveUrl: string, clientSecret: string): string {
  const url = new URL(liveUrl);
  url.searchParams.set('token', clientSecret);
  return url.toString();
}

/** Opens a live session with a client secret: what a browser does. Never give it an API key. */
export function connectWithClientSecret(options: SecretConnectOptions): Promise<LiveSession> {
  if (!options.clientSecret.startsWith('ek_')) {
    return Promise.reject(new Error('connectWithClientSecret takes a client secret (ek_…), never an API key'));
  }
  const Ctor = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Ctor) return Promise.reject(new Error('no WebSocket implementation: pass one (e.g. the ws package)'));
  const socket = new Ctor(liveUrlWithSecret(options.liveUrl, options.clientSecret));
  return startLiveSession(socket, options.session, options);
}
