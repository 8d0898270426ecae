import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A conversation session's token totals, as its chat upstream reported them over its responses: kept
 * as detail with the session when it is recorded closed (billing stays input audio frames). NULL for
 * sessions that are not conversations or whose engine reported no usage.
 */
export class SessionTokens1796200000000 implements MigrationInterface {
    name = 'SessionTokens1796200000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "sessions" ADD "input_tokens" bigint`);
        await queryRunner.query(`ALTER TABLE "sessions" ADD "output_tokens" bigint`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "output_tokens"`);
        await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "input_tokens"`);
    }

}
