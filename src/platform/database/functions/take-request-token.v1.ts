import { databaseFunction } from './database-function';

/** Takes one token from a key's request bucket (RequestTokens); the why is in that migration's comment. */
export const TAKE_REQUEST_TOKEN_V1 = databaseFunction(
  'continuum_take_request_token(bpchar, float8, float8)',
  `
CREATE FUNCTION continuum_take_request_token(p_key_hash bpchar, p_capacity float8, p_refill_per_second float8)
RETURNS TABLE (o_id varchar, o_project_id varchar, o_revoked boolean, o_allowed boolean, o_tokens float8)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  RETURN QUERY
  WITH bucket AS (
    SELECT k.id, LEAST(p_capacity, COALESCE(k.rl_tokens, p_capacity)
             + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - COALESCE(k.rl_updated_at, clock_timestamp())))
               * p_refill_per_second) AS available
      FROM api_keys k WHERE k.key_hash = p_key_hash FOR UPDATE
  )
  UPDATE api_keys k SET
     rl_allowed = b.available >= 1,
     rl_tokens = b.available - CASE WHEN b.available >= 1 THEN 1 ELSE 0 END,
     rl_updated_at = clock_timestamp(),
     last_used_at = clock_timestamp()
    FROM bucket b
   WHERE k.id = b.id
  RETURNING k.id, k.project_id, k.revoked_at IS NOT NULL, k.rl_allowed, k.rl_tokens;
END
$fn$`,
);
