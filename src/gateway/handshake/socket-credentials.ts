import type { IncomingMessage } from 'node:http';
import { Credential, extractHeaderCredential } from '../../modules/auth';

/**
 * Where a browser client, which cannot set headers on a WebSocket, puts its credential: `live` only
 * as `?token=`, `realtime` in OpenAI's subprotocol, `listen` in Deepgram's subprotocol pair (the
 * listen and Flux sockets both).
 */
export type CredentialStyle = 'live' | 'realtime' | 'listen';

export type SocketCredentialResult =
  { kind: 'none' } | { kind: 'malformed'; reason: string } | { kind: 'found'; credential: Credential };

const REALTIME_KEY_PROTOCOL = 'openai-insecure-api-key.';

/** Offered subprotocols; `ws` sends "a,b", browsers "a, b". */
export function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  if (!header) return [];
  return String(header)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * The subprotocol the server must echo, or none. Browser clients abort when an offered list gets no
 * answer, so the dialect's marker protocol is always chosen when offered.
 */
export function chooseProtocol(dialect: CredentialStyle, offered: Set<string>): string | false {
  if (dialect === 'realtime' && offered.has('realtime')) return 'realtime';
  if (dialect === 'listen') {
    for (const p of ['token', 'bearer']) if (offered.has(p)) return p;
  }
  return false;
}

/**
 * Finds a socket's credential: the Authorization or X-API-Key header (servers), else the dialect's
 * browser subprotocol form, else `?token=` (client secrets only; API keys in URLs are refused earlier).
 */
export function extractSocketCredential(req: IncomingMessage, dialect: CredentialStyle): SocketCredentialResult {
  const header = extractHeaderCredential(req.headers);
  if (header.kind !== 'none') return header;

  const protocols = offeredProtocols(req);
  if (dialect === 'realtime') {
    const keyed = protocols.find((p) => p.startsWith(REALTIME_KEY_PROTOCOL));
    if (keyed) return found(keyed.slice(REALTIME_KEY_PROTOCOL.length), 'subprotocol');
  }
  if (dialect === 'listen') {
    // Deepgram's browser form: the credential is the list element after `token` (or `bearer`).
    const at = protocols.findIndex((p) => p === 'token' || p === 'bearer');
    if (at >= 0 && protocols[at + 1]) return found(protocols[at + 1], 'subprotocol');
  }

  const token = new URL(req.url ?? '/', 'http://localhost').searchParams.get('token');
  if (token?.trim()) return found(token.trim(), 'query');
  return { kind: 'none' };
}

function found(value: string, source: Credential['source']): SocketCredentialResult {
  return { kind: 'found', credential: { value, source } };
}
