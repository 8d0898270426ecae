import { revisedFunction } from './database-function';
import { RECORD_METER_BATCHES_V1 } from './record-meter-batches.v1';

/** Writes the meter batches of many sessions in one statement (MeterBatches, TextMetering: a batch's text tokens too). */
export const RECORD_METER_BATCHES_V2 = revisedFunction(
  RECORD_METER_BATCHES_V1,
  [
    [
      `p_frames int[], p_costs jsonb[]`,
      `p_frames int[],
  p_input_tokens int[], p_output_tokens int[], p_costs jsonb[]`,
    ],
    [
      `p_frames, p_costs) AS i(id, session_id, seq, frames, costs)`,
      `p_frames, p_input_tokens, p_output_tokens, p_costs)
      AS i(id, session_id, seq, frames, input_tokens, output_tokens, costs)`,
    ],
    [
      `i.frames, COALESCE(`,
      `i.frames, i.input_tokens, i.output_tokens,
           COALESCE(`,
    ],
    [`seq, frames, cost_micros,`, `seq, frames, input_tokens, output_tokens, cost_micros,`],
    [`seq, frames, cost, now()`, `seq, frames, input_tokens, output_tokens, cost, now()`],
    [`project_id, frames, cost_micros\n`, `project_id, frames, input_tokens, output_tokens, cost_micros\n`],
    // A session's token counts: added to once a batch has text, NULL for a session that never had any.
    [
      `s.cost_micros + x.cost
      FROM (SELECT session_id, sum(frames)::int AS frames, sum(cost_micros)::bigint AS cost FROM ins GROUP BY session_id) x`,
      `s.cost_micros + x.cost,
           input_tokens = CASE WHEN x.texts > 0 THEN COALESCE(s.input_tokens, 0) + x.input_tokens ELSE s.input_tokens END,
           output_tokens = CASE WHEN x.texts > 0 THEN COALESCE(s.output_tokens, 0) + x.output_tokens ELSE s.output_tokens END
      FROM (SELECT session_id, sum(frames)::int AS frames, sum(cost_micros)::bigint AS cost,
                   sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
                   count(*) FILTER (WHERE input_tokens > 0 OR output_tokens > 0) AS texts
              FROM ins GROUP BY session_id) x`,
    ],
  ],
  'continuum_record_meter_batches(varchar[], varchar[], int[], int[], int[], int[], jsonb[])',
);
