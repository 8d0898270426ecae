import { MigrationInterface, QueryRunner } from "typeorm";

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
        await queryRunner.query(`
CREATE FUNCTION continuum_record_meter_batches(
  p_ids varchar[], p_session_ids varchar[], p_seqs int[], p_frames int[], p_costs jsonb[]
) RETURNS TABLE (o_id varchar, o_outcome text)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  PERFORM 1 FROM sessions WHERE id = ANY(p_session_ids) ORDER BY id FOR UPDATE;
  PERFORM 1 FROM projects
   WHERE id IN (SELECT project_id FROM sessions WHERE id = ANY(p_session_ids)) ORDER BY id FOR UPDATE;
  RETURN QUERY
  WITH input AS (
    SELECT * FROM unnest(p_ids, p_session_ids, p_seqs, p_frames, p_costs) AS i(id, session_id, seq, frames, costs)
  ), priced AS (
    SELECT i.id, i.session_id, s.project_id, i.seq, i.frames, COALESCE((i.costs ->> s.model)::bigint, 0) AS cost
      FROM input i JOIN sessions s ON s.id = i.session_id
  ), ins AS (
    INSERT INTO meter_events (id, session_id, project_id, seq, frames, cost_micros, recorded_at)
    SELECT id, session_id, project_id, seq, frames, cost, now() FROM priced
    ON CONFLICT (id) DO NOTHING
    RETURNING id, session_id, project_id, frames, cost_micros
  ), counted AS (
    UPDATE sessions s SET frames = s.frames + x.frames, cost_micros = s.cost_micros + x.cost
      FROM (SELECT session_id, sum(frames)::int AS frames, sum(cost_micros)::bigint AS cost FROM ins GROUP BY session_id) x
     WHERE s.id = x.session_id
    RETURNING 1
  ), charged AS (
    UPDATE projects p SET balance_micros = p.balance_micros - x.cost
      FROM (SELECT project_id, sum(cost_micros)::bigint AS cost FROM ins GROUP BY project_id) x
     WHERE p.id = x.project_id
    RETURNING 1
  )
  SELECT i.id, CASE
           WHEN NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = i.session_id) THEN 'unknown_session'
           WHEN i.id IN (SELECT ins.id FROM ins) THEN 'recorded'
           ELSE 'duplicate' END
    FROM input i;
END
$fn$`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP FUNCTION continuum_record_meter_batches(varchar[], varchar[], int[], int[], jsonb[])`);
    }
}
