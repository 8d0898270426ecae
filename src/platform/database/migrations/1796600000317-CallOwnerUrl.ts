import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Where the instance that holds a call's media is reached by the others (its INSTANCE_URL), recorded
 * with the call id: a sideband opened on another instance is relayed there. NULL for sessions that
 * are not calls, and for calls held by an instance with no INSTANCE_URL.
 */
export class CallOwnerUrl1796600000317 implements MigrationInterface {
    name = 'CallOwnerUrl1796600000317'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "sessions" ADD "call_owner_url" character varying(300)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "call_owner_url"`);
    }

}
