import { MigrationInterface, QueryRunner } from "typeorm";
import { RECORD_AUTH_FAILURE_V1 } from "../functions/record-auth-failure.v1";

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
        await queryRunner.query(RECORD_AUTH_FAILURE_V1.definition);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_record_auth_failure(varchar, float8, float8)`);
        await queryRunner.query(`DROP TABLE auth_failures`);
    }
}
