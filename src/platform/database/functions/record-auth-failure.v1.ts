import { databaseFunction } from './database-function';

/** Takes a token from a client address's bucket of failed authentications (AuthFailures). */
export const RECORD_AUTH_FAILURE_V1 = databaseFunction(
  'continuum_record_auth_failure(varchar, float8, float8)',
  `
CREATE FUNCTION continuum_record_auth_failure(p_address varchar, p_capacity float8, p_refill_per_second float8)
RETURNS TABLE (o_allowed boolean, o_tokens float8)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  IF random() < 0.01 THEN
    DELETE FROM auth_failures
     WHERE updated_at < clock_timestamp() - make_interval(secs => p_capacity / p_refill_per_second);
  END IF;
  RETURN QUERY
  INSERT INTO auth_failures AS f (client_address, tokens, allowed, updated_at)
  VALUES (p_address, p_capacity - 1, true, clock_timestamp())
  ON CONFLICT (client_address) DO UPDATE SET
     allowed = LEAST(p_capacity, f.tokens
               + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - f.updated_at)) * p_refill_per_second) >= 1,
     tokens = LEAST(p_capacity, f.tokens
               + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - f.updated_at)) * p_refill_per_second)
              - CASE WHEN LEAST(p_capacity, f.tokens
               + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - f.updated_at)) * p_refill_per_second) >= 1
                THEN 1 ELSE 0 END,
     updated_at = clock_timestamp()
  RETURNING f.allowed, f.tokens;
END
$fn$`,
);
