import { databaseFunction } from './database-function';

/** Writes the meter batches of many sessions in one statement (MeterBatches); the rules are in that migration's comment. */
export const RECORD_METER_BATCHES_V1 = databaseFunction(
  'continuum_record_meter_batches(varchar[], varchar[], int[], int[], jsonb[])',
  `
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
$fn$`,
);
