import type { ErrorCode } from '../../platform/errors/error-codes';

/** The credential checks every socket's handshake makes, and refuses with. */
const CREDENTIAL_REFUSALS: readonly ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'key_revoked',
  'api_key_in_query',
  'api_key_in_subprotocol',
  'invalid_client_secret',
  'client_secret_expired',
  'client_secret_used',
  'insufficient_credit',
];

/** The live socket checks an API key's own limits at `session.start`, not at the handshake. */
export const LIVE_HANDSHAKE_REFUSALS: readonly ErrorCode[] = [
  ...CREDENTIAL_REFUSALS,
  'rate_limit_exceeded',
  'capacity_exhausted',
  'shutting_down',
  'database_unavailable',
];

/**
 * What the handshake of every compatible socket (Realtime, listen, Flux) can refuse with: they are
 * admitted alike (CompatAdmissionService), so their AsyncAPI descriptions share the list.
 */
export const COMPAT_HANDSHAKE_REFUSALS: readonly ErrorCode[] = [
  'invalid_parameter',
  ...CREDENTIAL_REFUSALS,
  'rate_limit_exceeded',
  'concurrency_limit_exceeded',
  'capacity_exhausted',
  'shutting_down',
  'database_unavailable',
];
