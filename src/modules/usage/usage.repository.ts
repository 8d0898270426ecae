import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { UsageGrouping } from './dto/usage-query.dto';
import type { UsageRange } from './usage-range';

export interface UsageBucketRow {
  bucket: string;
  sessions: number;
  frames: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

/** A session as the export shows it, with the usage metered in the range; timestamps in Unix seconds. */
export interface ExportSessionRow {
  id: string;
  type: 'live' | 'transcription';
  model: string;
  status: string;
  close_reason: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  frames: string;
  cost_micros: string;
  /** Text tokens billed in the range (null: none). */
  input_tokens: string | null;
  output_tokens: string | null;
  /** The jsonb column as JSON text, spliced into the export without a parse. */
  metadata: string;
  /** created_at as PostgreSQL's text (microseconds kept): the keyset position. */
  at: string;
}

export interface SessionKey {
  at: string;
  id: string;
}

const IN_RANGE = (column: string) => `${column} >= to_timestamp($2) AND ${column} < to_timestamp($3)`;

/**
 * A session belongs to a range if it was created in it or metered in it; its usage there is the sum
 * of the meter events recorded in it. The report and the export both read this rule.
 */
const ACTIVITY = `
  SELECT m.session_id, m.recorded_at AS at, m.frames, m.input_tokens, m.output_tokens, m.cost_micros
  FROM meter_events m
  WHERE m.project_id = $1 AND ${IN_RANGE('m.recorded_at')}
  UNION ALL
  SELECT s.id, s.created_at, 0, 0, 0, 0
  FROM sessions s
  WHERE s.project_id = $1 AND ${IN_RANGE('s.created_at')}`;

const REPORT_SQL: Record<UsageGrouping, string> = {
  // Per (session, day) first, so that a session is counted once per day however many events it has.
  day: `
    WITH activity AS (${ACTIVITY}),
    per_session AS (
      SELECT session_id, (at AT TIME ZONE 'UTC')::date AS day, sum(frames) AS frames,
             sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_micros) AS cost
      FROM activity GROUP BY 1, 2
    )
    SELECT to_char(day, 'YYYY-MM-DD') AS bucket, count(*)::int AS sessions, sum(frames)::bigint AS frames,
           sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens, sum(cost)::bigint AS cost
    FROM per_session GROUP BY day ORDER BY day`,
  model: `
    WITH activity AS (${ACTIVITY}),
    per_session AS (
      SELECT session_id, sum(frames) AS frames, sum(input_tokens) AS input_tokens,
             sum(output_tokens) AS output_tokens, sum(cost_micros) AS cost
      FROM activity GROUP BY 1
    )
    SELECT s.model AS bucket, count(*)::int AS sessions, sum(p.frames)::bigint AS frames,
           sum(p.input_tokens)::bigint AS input_tokens, sum(p.output_tokens)::bigint AS output_tokens,
           sum(p.cost)::bigint AS cost
    FROM per_session p JOIN sessions s ON s.id = p.session_id
    GROUP BY s.model ORDER BY s.model`,
};

const EXPORT_COLUMNS = `
  s.id, s.type, s.model, s.status, s.close_reason,
  floor(extract(epoch FROM s.created_at))::bigint AS created_at,
  floor(extract(epoch FROM s.started_at))::bigint AS started_at,
  floor(extract(epoch FROM s.ended_at))::bigint AS ended_at,
  u.frames, u.cost_micros, u.input_tokens, u.output_tokens, s.metadata::text AS metadata, s.created_at::text AS at`;

/** Tokens are null, as on the session, when no batch in the range billed any. */
const USAGE_IN_RANGE = `
  CROSS JOIN LATERAL (
    SELECT COALESCE(sum(m.frames), 0)::bigint AS frames, COALESCE(sum(m.cost_micros), 0)::bigint AS cost_micros,
           CASE WHEN bool_or(m.input_tokens > 0 OR m.output_tokens > 0) THEN sum(m.input_tokens)::bigint END AS input_tokens,
           CASE WHEN bool_or(m.input_tokens > 0 OR m.output_tokens > 0) THEN sum(m.output_tokens)::bigint END AS output_tokens
    FROM meter_events m
    WHERE m.session_id = s.id AND ${IN_RANGE('m.recorded_at')}
  ) u`;

/** Read side of usage: the aggregate report and the export's pages. */
@Injectable()
export class UsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  async report(projectId: string, range: UsageRange, groupBy: UsageGrouping): Promise<UsageBucketRow[]> {
    const rows: {
      bucket: string;
      sessions: number;
      frames: string;
      input_tokens: string;
      output_tokens: string;
      cost: string;
    }[] = await this.dataSource.query(REPORT_SQL[groupBy], [projectId, range.from, range.to]);
    return rows.map((r) => ({
      bucket: r.bucket,
      sessions: r.sessions,
      frames: Number(r.frames),
      inputTokens: Number(r.input_tokens),
      outputTokens: Number(r.output_tokens),
      costMicros: Number(r.cost),
    }));
  }

  /**
   * Sessions created before the range but metered in it (they were live at its start), oldest first.
   * Only sessions alive at one instant qualify, so the list is small whatever the range holds; finding
   * it costs one scan of the range's events.
   */
  async carriedSessionIds(projectId: string, range: UsageRange): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT s.id FROM sessions s
       WHERE s.project_id = $1 AND s.created_at < to_timestamp($2)
         AND s.id IN (SELECT m.session_id FROM meter_events m WHERE m.project_id = $1 AND ${IN_RANGE('m.recorded_at')})
       ORDER BY s.created_at, s.id`,
      [projectId, range.from, range.to],
    );
    return rows.map((r) => r.id);
  }

  exportSessionsByIds(projectId: string, range: UsageRange, ids: string[]): Promise<ExportSessionRow[]> {
    return this.dataSource.query(
      `SELECT ${EXPORT_COLUMNS} FROM sessions s ${USAGE_IN_RANGE}
       WHERE s.project_id = $1 AND s.id = ANY($4)
       ORDER BY s.created_at, s.id`,
      [projectId, range.from, range.to, ids],
    );
  }

  /** Sessions created in the range, in (created_at, id) order after `after`, with their usage in the range. */
  exportSessionsCreated(
    projectId: string,
    range: UsageRange,
    after: SessionKey | null,
    limit: number,
  ): Promise<ExportSessionRow[]> {
    const params: unknown[] = [projectId, range.from, range.to, limit];
    let keyset = '';
    if (after) {
      params.push(after.at, after.id);
      keyset = 'AND (s.created_at, s.id) > ($5::timestamptz, $6)';
    }
    return this.dataSource.query(
      `SELECT ${EXPORT_COLUMNS} FROM sessions s ${USAGE_IN_RANGE}
       WHERE s.project_id = $1 AND ${IN_RANGE('s.created_at')} ${keyset}
       ORDER BY s.created_at, s.id
       LIMIT $4`,
      params,
    );
  }
}
