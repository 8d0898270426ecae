/**
 * The places a socket's credential can travel in, as building blocks a dialect lists (its
 * `credentials`). The set is open: a dialect whose clients put the credential somewhere else writes
 * its own CredentialPlace in its folder; the handshake only walks the list.
 */
import type { IncomingMessage } from 'node:http';
import { extractHeaderCredential, isApiKey } from '../../modules/auth';
import type { ErrorCode } from '../../platform/errors/error-codes';

export interface SocketCredential {
  readonly value: string;
  /** Where it was found (`authorization`, `x-api-key`, `subprotocol`, `query`, or a dialect's own name). */
  readonly source: string;
}

export type SocketCredentialResult =
  | { readonly kind: 'none' }
  | { readonly kind: 'malformed'; readonly reason: string }
  /** A credential this place must not carry (an API key where a browser puts it): refused with `code`. */
  | { readonly kind: 'refused'; readonly code: ErrorCode; readonly reason: string }
  | { readonly kind: 'found'; readonly credential: SocketCredential };

export interface CredentialPlace {
  /**
   * What this place holds on the upgrade request. `none` lets the next place look; `malformed` ends the
   * search as `found` does, so a client that sent something learns it was not understood (401
   * `invalid_api_key` with the reason) instead of being told it sent nothing.
   */
  read(req: IncomingMessage): SocketCredentialResult;
  /**
   * A credential this place must never carry (an API key where browsers put theirs): refused before
   * any place is read, even when another place holds a good credential, as an API key in a URL is.
   */
  refuse?(req: IncomingMessage): Extract<SocketCredentialResult, { kind: 'refused' }> | null;
  /**
   * The subprotocol the server answers with, among those offered: browser clients abort a handshake
   * whose offered list gets no answer, so a place with a marker protocol names it here.
   */
  answer?(offered: ReadonlySet<string>): string | undefined;
  /**
   * How the refusal of a socket that sent no credential names this place ("a client secret as
   * ?token="); a place without one is not named (the browser subprotocol forms, which their SDKs send).
   */
  readonly hint?: string;
}

/** Where a dialect accepts a credential, in the order they are looked at. */
export type SocketCredentials = readonly CredentialPlace[];

export const NO_CREDENTIAL: SocketCredentialResult = { kind: 'none' };

/** What a socket that sent no credential is told: the places that name themselves, in order. */
export function missingCredentialMessage(places: SocketCredentials): string {
  const hints = places.flatMap((place) => (place.hint === undefined ? [] : [place.hint]));
  return hints.length > 0 ? `Send ${hints.join(', or ')}` : 'Send a credential';
}

export function foundCredential(value: string, source: string): SocketCredentialResult {
  return { kind: 'found', credential: { value, source } };
}

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
 * The REST API's headers, for servers: `Authorization: Bearer|Token <credential>`, else `X-API-Key`.
 * Shared with REST (modules/auth) so a key that opens a route opens a socket the same way.
 */
export const SERVER_HEADERS: CredentialPlace = {
  read: (req) => extractHeaderCredential(req.headers),
  hint: 'an API key in the Authorization header',
};

/**
 * A subprotocol that carries the credential after a prefix (OpenAI's `openai-insecure-api-key.<key>`),
 * offered beside a marker protocol the server answers with. `secretsOnly`: it is where browsers put
 * the credential, so an API key in it is refused (`api_key_in_subprotocol`), as one in a URL is: a key
 * shipped to a browser is a key anyone can read.
 */
export function subprotocolPrefix(prefix: string, marker: string, { secretsOnly = false } = {}): CredentialPlace {
  return {
    read(req) {
      const keyed = offeredProtocols(req).find((p) => p.startsWith(prefix));
      return keyed === undefined ? NO_CREDENTIAL : foundCredential(keyed.slice(prefix.length), 'subprotocol');
    },
    refuse(req) {
      if (!secretsOnly || !offeredProtocols(req).some((p) => p.startsWith(prefix) && isApiKey(p.slice(prefix.length))))
        return null;
      return {
        kind: 'refused',
        code: 'api_key_in_subprotocol',
        reason: `API keys are never accepted in the ${prefix} subprotocol (where browsers put the credential); send a client secret there, or the key in a header from a server`,
      };
    },
    answer: (offered) => (offered.has(marker) ? marker : undefined),
  };
}

/**
 * A pair of subprotocols: a marker, then the credential as the next element (Deepgram's
 * `token, <key>`). The first marker of `markers` that was offered is the answer.
 */
export function subprotocolAfter(markers: readonly string[]): CredentialPlace {
  return {
    read(req) {
      const protocols = offeredProtocols(req);
      const at = protocols.findIndex((p) => markers.includes(p));
      return at >= 0 && protocols[at + 1] ? foundCredential(protocols[at + 1], 'subprotocol') : NO_CREDENTIAL;
    },
    answer: (offered) => markers.find((marker) => offered.has(marker)),
  };
}

/**
 * A query parameter (`?token=`), for browsers. Client secrets only in practice: the admission refuses
 * an API key anywhere in a URL before it looks at the credential.
 */
export function queryParameter(name: string): CredentialPlace {
  return {
    read(req) {
      const value = new URL(req.url ?? '/', 'http://localhost').searchParams.get(name)?.trim();
      return value ? foundCredential(value, 'query') : NO_CREDENTIAL;
    },
    hint: `a client secret as ?${name}=`,
  };
}
