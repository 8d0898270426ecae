import { MigrationInterface, QueryRunner } from "typeorm";

/** The function as this migration creates it; a later migration's down() restores it. */
export const TAKE_REQUEST_TOKEN_V1 = `
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
$fn$`;

/**
 * continuum_take_request_token() finds an API key by its hash and takes one token from its request
 * bucket, in one statement that commits without waiting for the WAL flush: the bucket and
 * last_used_at are bookkeeping a crash may roll back by a moment (the worst case is a few requests
 * over the limit), and a flush on every authenticated request would make every request wait for
 * the disk. The row lock of the UPDATE keeps the bucket exact across instances.
 */
export class RequestTokens1795249085621 implements MigrationInterface {
    name = 'RequestTokens1795249085621'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(TAKE_REQUEST_TOKEN_V1);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_take_request_token(bpchar, float8, float8)`);
    }

}
