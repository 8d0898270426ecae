import { MigrationInterface, QueryRunner } from "typeorm";

export class Initial1795239154665 implements MigrationInterface {
    name = 'Initial1795239154665'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "client_secrets" ("id" character varying(40) NOT NULL, "session_id" character varying(40) NOT NULL, "secret_hash" character(64) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_528f9011d942fe4285af16c1df5" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "UQ_client_secrets_session_id" ON "client_secrets"  ("session_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "UQ_client_secrets_secret_hash" ON "client_secrets"  ("secret_hash") `);
        await queryRunner.query(`CREATE TABLE "projects" ("id" character varying(40) NOT NULL, "name" text NOT NULL, "balance_micros" bigint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6271df0a7aed1d6c0691ce6ac50" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "api_keys" ("id" character varying(40) NOT NULL, "project_id" character varying(40) NOT NULL, "name" text NOT NULL, "key_hash" character(64) NOT NULL, "key_prefix" character varying(16) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, "rl_tokens" double precision, "rl_updated_at" TIMESTAMP WITH TIME ZONE, "rl_allowed" boolean NOT NULL DEFAULT true, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "IDX_api_keys_project_id" ON "api_keys"  ("project_id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "UQ_api_keys_key_hash" ON "api_keys"  ("key_hash") `);
        await queryRunner.query(`CREATE TABLE "sessions" ("id" character varying(40) NOT NULL, "project_id" character varying(40) NOT NULL, "api_key_id" character varying(40), "type" character varying(16) NOT NULL, "model" character varying(64) NOT NULL, "status" character varying(16) NOT NULL, "pool" character varying(64) NOT NULL, "region" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP WITH TIME ZONE, "ended_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, "close_reason" character varying(32), "metadata" jsonb NOT NULL DEFAULT '{}'::jsonb, "audio" jsonb NOT NULL, "frames" integer NOT NULL DEFAULT '0', "cost_micros" bigint NOT NULL DEFAULT '0', "deleted_at" TIMESTAMP WITH TIME ZONE, "instance_id" character varying(64), "heartbeat_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_3238ef96f18b355b671619111bc" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "IDX_sessions_status_expires" ON "sessions"  ("status", "expires_at") `);
        await queryRunner.query(`CREATE INDEX "IDX_sessions_project_status" ON "sessions"  ("project_id", "status") `);
        await queryRunner.query(`CREATE INDEX "IDX_sessions_project_created" ON "sessions"  ("project_id", "created_at", "id") `);
        await queryRunner.query(`CREATE TABLE "meter_events" ("id" character varying(80) NOT NULL, "session_id" character varying(40) NOT NULL, "project_id" character varying(40) NOT NULL, "seq" integer NOT NULL, "frames" integer NOT NULL, "cost_micros" bigint NOT NULL, "recorded_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_db987a46375dbbe68715a0a5922" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "IDX_meter_events_session" ON "meter_events"  ("session_id", "seq") `);
        await queryRunner.query(`CREATE INDEX "IDX_meter_events_project_recorded" ON "meter_events"  ("project_id", "recorded_at", "id") `);
        await queryRunner.query(`ALTER TABLE "api_keys" ADD CONSTRAINT "FK_f5de07dbb229225e2be643ff3d0" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "FK_f5de07dbb229225e2be643ff3d0"`);
        await queryRunner.query(`DROP INDEX "public"."IDX_meter_events_project_recorded"`);
        await queryRunner.query(`DROP INDEX "public"."IDX_meter_events_session"`);
        await queryRunner.query(`DROP TABLE "meter_events"`);
        await queryRunner.query(`DROP INDEX "public"."IDX_sessions_project_created"`);
        await queryRunner.query(`DROP INDEX "public"."IDX_sessions_project_status"`);
        await queryRunner.query(`DROP INDEX "public"."IDX_sessions_status_expires"`);
        await queryRunner.query(`DROP TABLE "sessions"`);
        await queryRunner.query(`DROP INDEX "public"."UQ_api_keys_key_hash"`);
        await queryRunner.query(`DROP INDEX "public"."IDX_api_keys_project_id"`);
        await queryRunner.query(`DROP TABLE "api_keys"`);
        await queryRunner.query(`DROP TABLE "projects"`);
        await queryRunner.query(`DROP INDEX "public"."UQ_client_secrets_secret_hash"`);
        await queryRunner.query(`DROP INDEX "public"."UQ_client_secrets_session_id"`);
        await queryRunner.query(`DROP TABLE "client_secrets"`);
    }

}
