import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * auth_failures holds a token bucket of failed authentications per client address, shared by every
 * instance. continuum_record_auth_failure() takes a token for one failure, in one statement that, like
 * the request-token bucket, commits without waiting for the WAL flush (after a database crash an
 * address may fail a few more times once). Only failures reach it: a request with a good key never
 * touches the table. Rows whose bucket has filled up again mean nothing and are pruned now and then.
 */
export class AuthFailures1796000000000 implements MigrationInterface {
    name = 'AuthFailures1796000000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`
CREATE TABLE auth_failures (
  client_address varchar(64) PRIMARY KEY,
  tokens float8 NOT NULL,
  allowed boolean NOT NULL,
  updated_at timestamptz NOT NULL
)`);
        await queryRunner.query(`
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
$fn$`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_record_auth_failure(varchar, float8, float8)`);
        await queryRunner.query(`DROP TABLE auth_failures`);
    }
}
