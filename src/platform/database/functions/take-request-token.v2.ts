import { revisedFunction } from './database-function';
import { TAKE_REQUEST_TOKEN_V1 } from './take-request-token.v1';

/**
 * The request bucket takes its size from the key's project when the operator set one
 * (projects.requests_per_minute), else from the service's configuration (the arguments); it also
 * says which size applied, so the x-ratelimit-* headers tell the truth.
 */
export const TAKE_REQUEST_TOKEN_V2 = revisedFunction(TAKE_REQUEST_TOKEN_V1, [
  [
    `o_tokens float8)`,
    `o_tokens float8,
               o_capacity float8)`,
  ],
  [
    `    SELECT k.id, LEAST(p_capacity, COALESCE(k.rl_tokens, p_capacity)`,
    `    SELECT k.id, r.capacity, LEAST(r.capacity, COALESCE(k.rl_tokens, r.capacity)`,
  ],
  [
    `               * p_refill_per_second) AS available
      FROM api_keys k WHERE k.key_hash = p_key_hash FOR UPDATE`,
    `               * r.refill) AS available
      FROM api_keys k
      JOIN projects p ON p.id = k.project_id
      CROSS JOIN LATERAL (SELECT COALESCE(p.requests_per_minute::float8, p_capacity) AS capacity,
                                 COALESCE(p.requests_per_minute / 60.0::float8, p_refill_per_second) AS refill) r
     WHERE k.key_hash = p_key_hash FOR UPDATE OF k`,
  ],
  [`k.rl_tokens;`, `k.rl_tokens, b.capacity;`],
]);
