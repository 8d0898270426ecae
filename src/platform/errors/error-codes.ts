/** Every error code the REST API and socket handshakes answer with, and its HTTP status: one table. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  invalid_request: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  key_revoked: 401,
  api_key_in_query: 401,
  api_key_in_subprotocol: 401,
  invalid_client_secret: 401,
  client_secret_expired: 401,
  insufficient_credit: 403,
  permission_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  client_secret_used: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  headers_too_large: 431,
  concurrency_limit_exceeded: 429,
  internal_error: 500,
  capacity_exhausted: 503,
  shutting_down: 503,
  database_unavailable: 503,
  call_unreachable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** For statuses raised by the framework itself (unknown route, wrong content type, oversized body). */
export const CODE_FOR_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  401: 'invalid_api_key',
  403: 'permission_denied',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'client_secret_used',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  431: 'headers_too_large',
  503: 'shutting_down',
};
