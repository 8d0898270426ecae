import { MigrationInterface, QueryRunner } from "typeorm";
import { TAKE_REQUEST_TOKEN_V1 } from "../functions/take-request-token.v1";
import { ADMIT_SESSIONS_V1 } from "../functions/admit-sessions.v1";
import { TAKE_REQUEST_TOKEN_V2 } from "../functions/take-request-token.v2";
import { ADMIT_SESSIONS_V2 } from "../functions/admit-sessions.v2";

/**
 * Operator controls: a project's credit limit (how far below zero its balance may fall; NULL lifts it)
 * and its own concurrency and request-rate limits (NULL: the configured defaults), a ledger of every
 * operator change with who made it and when, and an index to find a key's open sessions when it is
 * revoked (its unused secrets are revoked and its live sessions ended).
 */
export class OperatorControls1796100000000 implements MigrationInterface {
    name = 'OperatorControls1796100000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "projects" ADD "credit_limit_micros" bigint DEFAULT 0`);
        await queryRunner.query(`ALTER TABLE "projects" ADD "concurrent_sessions_limit" integer`);
        await queryRunner.query(`ALTER TABLE "projects" ADD "requests_per_minute" integer`);
        await queryRunner.query(`CREATE TABLE "project_ledger" ("id" character varying(40) NOT NULL, "project_id" character varying(40) NOT NULL, "kind" character varying(32) NOT NULL, "amount_micros" bigint, "balance_micros" bigint NOT NULL, "detail" jsonb NOT NULL DEFAULT '{}'::jsonb, "actor" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(), CONSTRAINT "PK_project_ledger" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "IDX_project_ledger_project_created" ON "project_ledger" ("project_id", "created_at", "id") `);
        await queryRunner.query(`ALTER TABLE "project_ledger" ADD CONSTRAINT "FK_project_ledger_project" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`CREATE INDEX "IDX_sessions_api_key_open" ON "sessions" ("api_key_id") WHERE status IN ('pending', 'active')`);
        await queryRunner.query(`DROP FUNCTION continuum_admit_sessions(jsonb)`);
        await queryRunner.query(`DROP FUNCTION continuum_take_request_token(bpchar, float8, float8)`);
        await queryRunner.query(TAKE_REQUEST_TOKEN_V2.definition);
        await queryRunner.query(ADMIT_SESSIONS_V2.definition);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_admit_sessions(jsonb)`);
        await queryRunner.query(`DROP FUNCTION continuum_take_request_token(bpchar, float8, float8)`);
        await queryRunner.query(TAKE_REQUEST_TOKEN_V1.definition);
        await queryRunner.query(ADMIT_SESSIONS_V1.definition);
        await queryRunner.query(`DROP INDEX "public"."IDX_sessions_api_key_open"`);
        await queryRunner.query(`ALTER TABLE "project_ledger" DROP CONSTRAINT "FK_project_ledger_project"`);
        await queryRunner.query(`DROP INDEX "public"."IDX_project_ledger_project_created"`);
        await queryRunner.query(`DROP TABLE "project_ledger"`);
        await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "requests_per_minute"`);
        await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "concurrent_sessions_limit"`);
        await queryRunner.query(`ALTER TABLE "projects" DROP COLUMN "credit_limit_micros"`);
    }

}
