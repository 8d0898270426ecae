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

export interface SessionBilling {
  projectId: string;
  model: string;
}

/** Meter events: the idempotent write of a batch, and keyset reads in (recorded_at, id) order. */
@Injectable()
export class MeterEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  findSessionBilling(sessionId: string): Promise<SessionBilling | null> {
    return this.dataSource
      .query('SELECT project_id, model FROM sessions WHERE id = $1', [sessionId])
      .then((rows: { project_id: string; model: string }[]) =>
        rows[0] ? { projectId: rows[0].project_id, model: rows[0].model } : null,
      );
  }

  /**
   * Writes one batch in one transaction: the event row first (its id is the idempotency key), then,
   * only if the row is new, the session's totals and the project's balance. A concurrent duplicate
   * waits on the unique key and then inserts nothing; row locks are taken in one order (session, then
   * project), so concurrent batches cannot deadlock. Every statement goes through the transaction's
   * own manager: on the embedded database another connection would wait behind this transaction.
   * Returns whether the batch was new.
   */
  recordBatch(
    id: string,
    sessionId: string,
    billing: SessionBilling,
    seq: number,
    frames: number,
    costMicros: number,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const inserted: unknown[] = await manager.query(
        `INSERT INTO meter_events (id, session_id, project_id, seq, frames, cost_micros, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())
         ON CONFLICT (id) DO NOTHING
         RETURNING id`,
        [id, sessionId, billing.projectId, seq, frames, costMicros],
      );
      if (inserted.length === 0) return false;
      await manager.query('UPDATE sessions SET frames = frames + $2, cost_micros = cost_micros + $3 WHERE id = $1', [
        sessionId,
        frames,
        costMicros,
      ]);
      await manager.query('UPDATE projects SET balance_micros = balance_micros - $2 WHERE id = $1', [
        billing.projectId,
        costMicros,
      ]);
      return true;
    });
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
