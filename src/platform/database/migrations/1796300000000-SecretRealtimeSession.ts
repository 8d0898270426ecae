import { MigrationInterface, QueryRunner } from "typeorm";
import { ADMIT_SESSIONS_V2 } from "../functions/admit-sessions.v2";
import { ADMIT_SESSIONS_V3 } from "../functions/admit-sessions.v3";

/**
 * A client secret of a Realtime conversation session carries its configuration (instructions, tools,
 * tool choice, output modalities, token limit), as OpenAI's do, so a browser agent is configured by
 * the server that holds the API key. It is stored with the secret (NULL for every other secret) and
 * applied when the secret opens its socket. The admission function inserts it with the secret.
 */
export class SecretRealtimeSession1796300000000 implements MigrationInterface {
    name = 'SecretRealtimeSession1796300000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "client_secrets" ADD "realtime_session" jsonb`);
        await queryRunner.query(`DROP FUNCTION continuum_admit_sessions(jsonb)`);
        await queryRunner.query(`ALTER TYPE continuum_admission ADD ATTRIBUTE secret_realtime_session jsonb`);
        await queryRunner.query(ADMIT_SESSIONS_V3.definition);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_admit_sessions(jsonb)`);
        await queryRunner.query(`ALTER TYPE continuum_admission DROP ATTRIBUTE secret_realtime_session`);
        await queryRunner.query(ADMIT_SESSIONS_V2.definition);
        await queryRunner.query(`ALTER TABLE "client_secrets" DROP COLUMN "realtime_session"`);
    }

}
