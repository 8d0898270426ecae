import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { poolSizeOf } from '../../platform/database/data-source-options';
import { StatementBatcher } from '../../platform/database/statement-batcher';
import { queryArrays } from '../../platform/database/pg-pool';
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

export interface NewMeterBatch {
  id: string;
  sessionId: string;
  seq: number;
  frames: number;
  inputTokens: number;
  outputTokens: number;
  costByModel: Readonly<Record<string, number>>;
}

/** Enough to carry a burst in one statement, few enough to hold its row locks briefly. */
const MAX_BATCH = 100;
/**
 * How long a meter batch waits for others before its statement goes: a commit per batch was most of
 * the database's work at one batch per ~1 s per session (bench/results/meter.json). It adds to what a
 * crash can lose: 10 frames (0.8 s) + 150 ms stays under 1 s.
 */
export const METER_LINGER_MS = 150;

/** Meter events: the idempotent write of a batch, and keyset reads in (recorded_at, id) order. */
@Injectable()
export class MeterEventsRepository {
  private readonly logger = new Logger(MeterEventsRepository.name);
  private readonly batcher: StatementBatcher<NewMeterBatch, BatchOutcome>;

  constructor(private readonly dataSource: DataSource) {
    // A quarter of the pool, and batches wait up to METER_LINGER_MS for others to share their statement.
    const statements = Math.max(1, Math.floor(poolSizeOf(dataSource.options) / 4));
    this.batcher = new StatementBatcher(
      (batches) => this.recordBatches(batches),
      statements,
      MAX_BATCH,
      // Through the error serializer: the statement's name and SQLSTATE, never its parameters.
      (error, size) =>
        this.logger.warn({ err: error, size }, 'a statement of meter batches failed, retrying them one by one'),
      METER_LINGER_MS,
    );
  }

  /**
   * Records one session's batch, together with the other sessions' batches that arrive within
   * METER_LINGER_MS (see recordBatches): they share a round trip and a commit.
   */
  recordBatch(batch: NewMeterBatch): Promise<BatchOutcome> {
    return this.batcher.submit(batch);
  }

  /**
   * Writes many sessions' batches in one statement (continuum_record_meter_batches(), migration
   * MeterBatches): each batch's event row (its id is the idempotency key), then, only for new rows, the
   * sessions' totals and the projects' balances. A batch's cost is the one of its session's model in
   * its `costByModel` (0 for a model not in it). Answers each batch's outcome, in order.
   */
  async recordBatches(batches: readonly NewMeterBatch[]): Promise<BatchOutcome[]> {
    const rows: { o_id: string; o_outcome: BatchOutcome }[] = await this.dataSource.query(
      `SELECT * FROM continuum_record_meter_batches($1::varchar[], $2::varchar[], $3::int[], $4::int[], $5::int[],
                                                    $6::int[], $7::jsonb[])`,
      [
        batches.map((b) => b.id),
        batches.map((b) => b.sessionId),
        batches.map((b) => b.seq),
        batches.map((b) => b.frames),
        batches.map((b) => b.inputTokens),
        batches.map((b) => b.outputTokens),
        batches.map((b) => JSON.stringify(b.costByModel)),
      ],
    );
    const outcome = new Map(rows.map((r) => [r.o_id, r.o_outcome]));
    return batches.map((b) => outcome.get(b.id) ?? 'unknown_session');
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
