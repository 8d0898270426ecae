import type { IncomingHttpHeaders } from 'node:http';

export type CredentialSource = 'authorization' | 'x-api-key' | 'query' | 'subprotocol';

export interface Credential {
  value: string;
  source: CredentialSource;
}

const SCHEMES = new Set(['bearer', 'token']);

export type ExtractResult =
  { kind: 'none' } | { kind: 'malformed'; reason: string } | { kind: 'found'; credential: Credential };

/**
 * Finds the credential of a request: `Authorization: Bearer|Token <value>` (scheme case-insensitive),
 * else `X-API-Key`. A header with any other scheme is malformed rather than absent, so a client that
 * sent something learns it was not understood.
 */
export function extractHeaderCredential(headers: IncomingHttpHeaders): ExtractResult {
  const authorization = headers.authorization?.trim();
  if (authorization) {
    const match = /^(\S+)\s+(\S+)$/.exec(authorization);
    if (!match || !SCHEMES.has(match[1].toLowerCase())) {
      return { kind: 'malformed', reason: 'Authorization must be "Bearer <key>" or "Token <key>"' };
    }
    return { kind: 'found', credential: { value: match[2], source: 'authorization' } };
  }
  const apiKey = headers['x-api-key'];
  const value = Array.isArray(apiKey) ? apiKey[0] : apiKey;
  if (value?.trim()) return { kind: 'found', credential: { value: value.trim(), source: 'x-api-key' } };
  return { kind: 'none' };
}

/** True when any query parameter (name or value) carries an API key: keys must never travel in URLs. */
export function queryCarriesApiKey(rawUrl: string | undefined): boolean {
  if (!rawUrl) return false;
  const q = rawUrl.indexOf('?');
  if (q < 0) return false;
  for (const [name, value] of new URLSearchParams(rawUrl.slice(q + 1))) {
    if (name.startsWith('wk_') || value.trim().startsWith('wk_')) return true;
  }
  return false;
}

export const isApiKey = (value: string): boolean => value.startsWith('wk_');
export const isClientSecret = (value: string): boolean => value.startsWith('ek_');
