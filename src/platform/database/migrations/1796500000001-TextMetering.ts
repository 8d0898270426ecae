import { MigrationInterface, QueryRunner } from "typeorm";
import { RECORD_METER_BATCHES_V1 } from "../functions/record-meter-batches.v1";
import { RECORD_METER_BATCHES_V2 } from "../functions/record-meter-batches.v2";

/**
 * A conversation's text work is billed: a meter batch carries the text tokens of the responses that
 * ended since the last one (as the upstream reported them, or estimated), priced with its frames. The
 * sessions' input_tokens and output_tokens, until now written at close as unbilled detail, become the
 * billed totals, kept by the same statement as frames and cost (NULL until a session bills any).
 */
export class TextMetering1796500000001 implements MigrationInterface {
    name = 'TextMetering1796500000001'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "meter_events" ADD "input_tokens" integer NOT NULL DEFAULT 0`);
        await queryRunner.query(`ALTER TABLE "meter_events" ADD "output_tokens" integer NOT NULL DEFAULT 0`);
        await queryRunner.query(`DROP FUNCTION continuum_record_meter_batches(varchar[], varchar[], int[], int[], jsonb[])`);
        await queryRunner.query(RECORD_METER_BATCHES_V2.definition);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_record_meter_batches(varchar[], varchar[], int[], int[], int[], int[], jsonb[])`);
        await queryRunner.query(RECORD_METER_BATCHES_V1.definition);
        await queryRunner.query(`ALTER TABLE "meter_events" DROP COLUMN "output_tokens"`);
        await queryRunner.query(`ALTER TABLE "meter_events" DROP COLUMN "input_tokens"`);
    }
}
