import { databaseFunction } from './database-function';

/**
 * The request bucket takes its size from the key's project when the operator set one
 * (projects.requests_per_minute), else from the service's configuration (the arguments); it also
 * says which size applied, so the x-ratelimit-* headers tell the truth.
 */
export const TAKE_REQUEST_TOKEN_V2 = databaseFunction(
  'continuum_take_request_token(bpchar, float8, float8)',
  `
CREATE FUNCTION continuum_take_request_token(p_key_hash bpchar, p_capacity float8, p_refill_per_second float8)
RETURNS TABLE (o_id varchar, o_project_id varchar, o_revoked boolean, o_allowed boolean, o_tokens float8,
               o_capacity float8)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  RETURN QUERY
  WITH bucket AS (
    SELECT k.id, r.capacity, LEAST(r.capacity, COALESCE(k.rl_tokens, r.capacity)
             + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - COALESCE(k.rl_updated_at, clock_timestamp())))
               * r.refill) AS available
      FROM api_keys k
      JOIN projects p ON p.id = k.project_id
      CROSS JOIN LATERAL (SELECT COALESCE(p.requests_per_minute::float8, p_capacity) AS capacity,
                                 COALESCE(p.requests_per_minute / 60.0::float8, p_refill_per_second) AS refill) r
     WHERE k.key_hash = p_key_hash FOR UPDATE OF k
  )
  UPDATE api_keys k SET
     rl_allowed = b.available >= 1,
     rl_tokens = b.available - CASE WHEN b.available >= 1 THEN 1 ELSE 0 END,
     rl_updated_at = clock_timestamp(),
     last_used_at = clock_timestamp()
    FROM bucket b
   WHERE k.id = b.id
  RETURNING k.id, k.project_id, k.revoked_at IS NOT NULL, k.rl_allowed, k.rl_tokens, b.capacity;
END
$fn$`,
);
