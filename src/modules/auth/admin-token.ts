import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../../platform/errors/app-error';
import { digestsEqual, sha256Hex } from '../../platform/ids';
import type { AdminPrincipal } from './principal';

const ACTOR = /^[\x21-\x7e][\x20-\x7e]{0,99}$/;

/**
 * The admin API's own door, apart from API keys: without ADMIN_API_KEY_SHA256 (`expectedSha256`) the
 * routes do not exist (404); with it, only `Authorization: Bearer <admin token>` whose SHA-256 matches
 * passes, compared in constant time. An API key, however valid, is refused.
 */
export function authenticateAdmin(headers: IncomingHttpHeaders, expectedSha256: string | null): AdminPrincipal {
  if (!expectedSha256) throw new AppError('not_found', 'Not found');
  const token = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
  if (!token) throw new AppError('missing_api_key', 'Send the admin token as "Authorization: Bearer <token>"');
  if (!digestsEqual(sha256Hex(token), expectedSha256))
    throw new AppError('invalid_api_key', 'The admin token is not valid');
  return { kind: 'admin', actor: actorOf(headers['x-continuum-actor']) };
}

/** Who is recorded in the project's history: `admin-api`, or what the caller names in X-Continuum-Actor. */
function actorOf(header: string | string[] | undefined): string {
  if (header === undefined) return 'admin-api';
  if (typeof header !== 'string' || !ACTOR.test(header)) {
    throw new AppError('invalid_parameter', 'X-Continuum-Actor must be 1 to 100 printable ASCII characters', {
      param: 'x-continuum-actor',
    });
  }
  return `admin-api:${header}`;
}
