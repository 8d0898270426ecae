import { MigrationInterface, QueryRunner } from "typeorm";
import { TAKE_REQUEST_TOKEN_V1 } from "../functions/take-request-token.v1";

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
        await queryRunner.query(TAKE_REQUEST_TOKEN_V1.definition);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_take_request_token(bpchar, float8, float8)`);
    }

}
