import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryArrays } from './pg-pool';
import type { UsageRange } from './usage-range';

/** [id, session_id, frames, recorded_at as text]: arrays, not objects, on the hot path. */
export type MeterEventRow = readonly [id: string, sessionId: string, frames: number, recordedAt: string];

/** Where a keyset page ended: recorded_at as PostgreSQL's own text (microseconds kept), then id. */
export interface MeterEventKey {
  at: string;
  id: string;
}

export interface MeterEventPage {
  rows: MeterEventRow[];
  /** The last row's key; null when the page came back short (nothing follows). */
  next: MeterEventKey | null;
}

/** What writing a batch did: `duplicate` when that (session, seq) was recorded before. */
export type BatchOutcome = 'recorded' | 'duplicate' | 'unknown_session';

/** Meter events: the idempotent write of a batch, and keyset reads in (recorded_at, id) order. */
@Injectable()
export class MeterEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Writes one batch in one statement: the event row (its id is the idempotency key), then, only if
   * the row is new, the session's totals and the project's balance. The cost is the one of the
   * session's model in `costByModel` (0 for a model not in it). One statement instead of a lookup
   * and a four-statement transaction: at a batch every ~1 s per live session (crash loss bounded to
   * ~1 s), bench/results/meter.json shows what each round trip cost. A concurrent duplicate waits on
   * the unique key and then inserts nothing; a batch locks only its own session row and its
   * project's row, so concurrent batches cannot wait on each other in a cycle.
   */
  async recordBatch(
    id: string,
    sessionId: string,
    seq: number,
    frames: number,
    costByModel: Readonly<Record<string, number>>,
  ): Promise<BatchOutcome> {
    const rows: { found: number; inserted: number }[] = await this.dataSource.query(
      `WITH s AS (
         SELECT id, project_id, COALESCE(($5::jsonb ->> model)::bigint, 0) AS cost FROM sessions WHERE id = $2
       ), ins AS (
         INSERT INTO meter_events (id, session_id, project_id, seq, frames, cost_micros, recorded_at)
         SELECT $1, s.id, s.project_id, $3, $4, s.cost, now() FROM s
         ON CONFLICT (id) DO NOTHING
         RETURNING project_id, cost_micros
       ), counted AS (
         UPDATE sessions SET frames = sessions.frames + $4, cost_micros = sessions.cost_micros + ins.cost_micros
           FROM ins WHERE sessions.id = $2
         RETURNING 1
       ), charged AS (
         UPDATE projects p SET balance_micros = p.balance_micros - ins.cost_micros
           FROM ins WHERE p.id = ins.project_id
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM s)::int AS found, (SELECT count(*) FROM ins)::int AS inserted`,
      [id, sessionId, seq, frames, JSON.stringify(costByModel)],
    );
    if (rows[0].found === 0) return 'unknown_session';
    return rows[0].inserted > 0 ? 'recorded' : 'duplicate';
  }

  /**
   * One page of a project's events in the range, after `after`. Each page is its own short query
   * (no transaction, no server-side cursor), so a slow reader holds nothing open: on the embedded
   * database an open transaction would stall every other connection.
   */
  async page(
    projectId: string,
    range: UsageRange,
    after: MeterEventKey | null,
    limit: number,
  ): Promise<MeterEventPage> {
    const params: unknown[] = [projectId, range.from, range.to, limit];
    let keyset = '';
    if (after) {
      params.push(after.at, after.id);
      keyset = 'AND (m.recorded_at, m.id) > ($5::timestamptz, $6)';
    }
    // Qualified names throughout: an unqualified ORDER BY recorded_at would sort by the text column
    // of the select list (a full sort of the range) instead of walking the index.
    const rows = await queryArrays<[string, string, number, string]>(
      this.dataSource,
      `SELECT m.id, m.session_id, m.frames, m.recorded_at::text AS at FROM meter_events m
       WHERE m.project_id = $1 AND m.recorded_at >= to_timestamp($2) AND m.recorded_at < to_timestamp($3) ${keyset}
       ORDER BY m.recorded_at, m.id
       LIMIT $4`,
      params,
    );
    const last = rows.length === limit ? rows[rows.length - 1] : undefined;
    return { rows, next: last ? { at: last[3], id: last[0] } : null };
  }
}
