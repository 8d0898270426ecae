import { databaseFunction } from './database-function';

/** Writes the meter batches of many sessions in one statement (MeterBatches, TextMetering: a batch's text tokens too). */
export const RECORD_METER_BATCHES_V2 = databaseFunction(
  'continuum_record_meter_batches(varchar[], varchar[], int[], int[], int[], int[], jsonb[])',
  `
CREATE FUNCTION continuum_record_meter_batches(
  p_ids varchar[], p_session_ids varchar[], p_seqs int[], p_frames int[],
  p_input_tokens int[], p_output_tokens int[], p_costs jsonb[]
) RETURNS TABLE (o_id varchar, o_outcome text)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  PERFORM 1 FROM sessions WHERE id = ANY(p_session_ids) ORDER BY id FOR UPDATE;
  PERFORM 1 FROM projects
   WHERE id IN (SELECT project_id FROM sessions WHERE id = ANY(p_session_ids)) ORDER BY id FOR UPDATE;
  RETURN QUERY
  WITH input AS (
    SELECT * FROM unnest(p_ids, p_session_ids, p_seqs, p_frames, p_input_tokens, p_output_tokens, p_costs)
      AS i(id, session_id, seq, frames, input_tokens, output_tokens, costs)
  ), priced AS (
    SELECT i.id, i.session_id, s.project_id, i.seq, i.frames, i.input_tokens, i.output_tokens,
           COALESCE((i.costs ->> s.model)::bigint, 0) AS cost
      FROM input i JOIN sessions s ON s.id = i.session_id
  ), ins AS (
    INSERT INTO meter_events (id, session_id, project_id, seq, frames, input_tokens, output_tokens, cost_micros, recorded_at)
    SELECT id, session_id, project_id, seq, frames, input_tokens, output_tokens, cost, now() FROM priced
    ON CONFLICT (id) DO NOTHING
    RETURNING id, session_id, project_id, frames, input_tokens, output_tokens, cost_micros
  ), counted AS (
    UPDATE sessions s SET frames = s.frames + x.frames, cost_micros = s.cost_micros + x.cost,
           input_tokens = CASE WHEN x.texts > 0 THEN COALESCE(s.input_tokens, 0) + x.input_tokens ELSE s.input_tokens END,
           output_tokens = CASE WHEN x.texts > 0 THEN COALESCE(s.output_tokens, 0) + x.output_tokens ELSE s.output_tokens END
      FROM (SELECT session_id, sum(frames)::int AS frames, sum(cost_micros)::bigint AS cost,
                   sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
                   count(*) FILTER (WHERE input_tokens > 0 OR output_tokens > 0) AS texts
              FROM ins GROUP BY session_id) x
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
