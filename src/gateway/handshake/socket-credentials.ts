import type { IncomingMessage } from 'node:http';
import type { DialectName } from '../dialect';
import { DIALECTS } from '../dialects';
import { NO_CREDENTIAL, type SocketCredentialResult, type SocketCredentials } from './credential-places';

export { offeredProtocols, type SocketCredentialResult } from './credential-places';

/** A dialect's credential places, given as such or by the name of a listed dialect. */
export type CredentialsOf = SocketCredentials | DialectName;

function placesOf(credentials: CredentialsOf): SocketCredentials {
  if (typeof credentials !== 'string') return credentials;
  const dialect = DIALECTS.find((d) => d.name === credentials);
  if (!dialect) throw new Error(`no dialect is called ${credentials}`);
  return dialect.credentials;
}

/**
 * The subprotocol the server must echo, or none: the first place's answer among those offered.
 * Browser clients abort when an offered list gets no answer.
 */
export function chooseProtocol(credentials: CredentialsOf, offered: ReadonlySet<string>): string | false {
  for (const place of placesOf(credentials)) {
    const answer = place.answer?.(offered);
    if (answer !== undefined) return answer;
  }
  return false;
}

/**
 * Finds a socket's credential: the first of the dialect's places that holds one (or holds one
 * malformed) decides, unless a place holds one it refuses (an API key in a browser's subprotocol). API
 * keys in URLs are refused before this, whatever the places.
 */
export function extractSocketCredential(req: IncomingMessage, credentials: CredentialsOf): SocketCredentialResult {
  for (const place of placesOf(credentials)) {
    const refused = place.refuse?.(req);
    if (refused) return refused;
  }
  for (const place of placesOf(credentials)) {
    const result = place.read(req);
    if (result.kind !== 'none') return result;
  }
  return NO_CREDENTIAL;
}
