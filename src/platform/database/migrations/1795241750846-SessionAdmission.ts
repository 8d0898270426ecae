import { MigrationInterface, QueryRunner } from "typeorm";
import { ADMIT_SESSION_V1 } from "../functions/admit-session.v1";

/**
 * Session admission in one round trip: continuum_admit_session() locks the project's row, checks the
 * credit, counts the pending (unexpired) and active sessions and inserts the new session (and its
 * client secret) below the limit. It runs as one statement, so the project's row lock is held only
 * while the database works, never across a network round trip to the service; and each statement in
 * the function takes a fresh snapshot (READ COMMITTED), so the count sees every admission committed
 * before the lock was granted. The index makes that count a range scan of the open sessions.
 */
export class SessionAdmission1795241750846 implements MigrationInterface {
    name = 'SessionAdmission1795241750846'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."IDX_sessions_project_status"`);
        await queryRunner.query(`CREATE INDEX "IDX_sessions_project_status_expires" ON "sessions"  ("project_id", "status", "expires_at") `);
        await queryRunner.query(ADMIT_SESSION_V1.definition);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_admit_session(varchar, varchar, varchar, varchar, varchar, varchar, varchar, varchar, varchar, int, jsonb, jsonb, int, int, varchar, varchar)`);
        await queryRunner.query(`DROP INDEX "public"."IDX_sessions_project_status_expires"`);
        await queryRunner.query(`CREATE INDEX "IDX_sessions_project_status" ON "sessions" USING btree ("project_id", "status") `);
    }

}
