import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * How a session's media arrives: its dialect's WebSocket (every session so far), a WebRTC call, a
 * carrier's media stream, or a batch request; and a call's own id (`rtc_…`), by which the sideband and
 * hang-up find it. Set after admission by the transport that opened the session, so the admission
 * function does not change.
 */
export class SessionTransport1796400000000 implements MigrationInterface {
    name = 'SessionTransport1796400000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "sessions" ADD "transport" character varying(16) NOT NULL DEFAULT 'websocket'`);
        await queryRunner.query(`ALTER TABLE "sessions" ADD "call_id" character varying(40)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "IDX_sessions_call_id" ON "sessions" ("call_id") WHERE call_id IS NOT NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."IDX_sessions_call_id"`);
        await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "call_id"`);
        await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "transport"`);
    }

}
