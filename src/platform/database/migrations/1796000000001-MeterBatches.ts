import { MigrationInterface, QueryRunner } from "typeorm";
import { RECORD_METER_BATCHES_V1 } from "../functions/record-meter-batches.v1";

/**
 * continuum_record_meter_batches() writes the meter batches of many sessions in one statement: with a
 * batch every ~1 s per live session (a crash loses at most ~1 s of metered audio), a commit per batch
 * was most of the database's work (bench/results/meter.json). Each batch is judged as if alone: its
 * event row first (the id is the idempotency key; a duplicate, also within one call, inserts nothing),
 * then, for the new rows only, the sessions' totals and the projects' balances. The cost of a batch
 * comes from the service (`p_costs`: model → micro-USD for that batch), so prices stay the service's.
 * Session rows and then project rows are locked in id order first, the order every meter write takes,
 * so overlapping calls on any number of instances cannot deadlock.
 */
export class MeterBatches1796000000001 implements MigrationInterface {
    name = 'MeterBatches1796000000001'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(RECORD_METER_BATCHES_V1.definition);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_record_meter_batches(varchar[], varchar[], int[], int[], jsonb[])`);
    }
}
