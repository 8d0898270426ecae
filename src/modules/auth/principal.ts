import type { KeyCheck } from './key-checks.repository';

/** Who is calling: resolved once per request by the guard, read by handlers through @Auth(). */
export interface ApiKeyPrincipal {
  kind: 'api_key';
  projectId: string;
  apiKeyId: string;
}

/** Each key's request bucket: `capacity` tokens, refilled continuously. */
export interface RequestRate {
  capacity: number;
  refillPerSecond: number;
}

/**
 * An API key the guard read from the headers but did not look up, handed to a route that checks it
 * in its own database statement (@Authenticated({ checksKeyItself: true })).
 */
export interface PresentedApiKey {
  /** SHA-256 of the key: what the database compares. */
  readonly hash: string;
  /** The bucket the statement takes the request's token from. */
  readonly rate: RequestRate;
  /** Applies the statement's finding (null: no such key): sets the rate-limit headers, returns the principal or throws the refusal. */
  settle(check: KeyCheck | null): ApiKeyPrincipal;
  /** Whether a statement (or check()) has looked the key up. */
  readonly settled: boolean;
  /** Checks the key on its own, for a request that failed before a statement settled it; else does nothing. */
  check(): Promise<void>;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetMs: number;
}

/** The operator behind the admin token, and who is recorded in the project's history as acting. */
export interface AdminPrincipal {
  kind: 'admin';
  /** `admin-api`, or `admin-api:<name>` when the caller names itself in X-Continuum-Actor. */
  actor: string;
}

/** What @Auth() gives a handler, by the route's mode; a public route gets nothing. */
export type RouteAuth = ApiKeyPrincipal | PresentedApiKey | AdminPrincipal | undefined;

/** The request as the guard leaves it. */
export interface AuthenticatedRequest {
  auth: RouteAuth;
  /** On a route that checks its key itself: read by the refusal judge and the HTTP hooks. */
  presentedKey?: PresentedApiKey;
}
