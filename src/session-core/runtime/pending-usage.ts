/**
 * Usage that could not be written yet because the database was away: per session, the counted frames
 * and text tokens of its meter batches (never audio or text) and its close record, kept in memory until they are written,
 * oldest first. Pure: the gateway feeds it and drains it (PendingUsageWriter); specs drive it directly.
 *
 * Idempotency: a batch keeps the seq it was first written (or queued) with, so its meter event id
 * (`mev_<session>_<seq>`) never changes. Batches queued without an attempt are merged into one
 * interval that takes the first batch's seq (the later seqs of the interval are never used, and the
 * next batch after it has a higher seq still); once a write of an interval has been attempted its
 * frames are frozen, because that write may have committed before its answer was lost, and a retry
 * must carry the same id and the same frames. So a session holds at most one frozen batch, one open
 * interval and its close record: memory is bounded by the sessions, not by the outage's length.
 */
import type { MeterBatch, TextTokens } from '../model/session.types';

export interface PendingBatch {
  readonly seq: number;
  readonly frames: number;
  readonly tokens?: TextTokens;
}

interface Interval {
  seq: number;
  frames: number;
  tokens?: TextTokens;
  /** A write was attempted: its outcome may be unknown, so it is never merged with more frames. */
  frozen: boolean;
}

interface SessionPending<C> {
  readonly intervals: Interval[];
  close: C | null;
}

/** The next write of a session: its oldest batch, or, once every batch is written, its close. */
export type PendingWrite<C> =
  { readonly kind: 'batch'; readonly batch: PendingBatch } | { readonly kind: 'close'; readonly close: C };

/** What a store holds, as plain data: saved so that a crash during an outage loses next to nothing. */
export interface PendingUsageSnapshot<C> {
  readonly sessions: readonly {
    readonly sessionId: string;
    readonly batches: readonly PendingBatch[];
    readonly close: C | null;
  }[];
}

export interface PendingUsageStats {
  readonly sessions: number;
  readonly batches: number;
  readonly frames: number;
  readonly closes: number;
}

export class PendingUsage<C> {
  /** In the order sessions first had something pending: the oldest first. */
  private readonly sessions = new Map<string, SessionPending<C>>();

  /** Whether anything of the session waits: then everything that follows it must wait behind it. */
  holds(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  get isEmpty(): boolean {
    return this.sessions.size === 0;
  }

  /**
   * Keeps a batch: `attempted` when its write was tried and failed (it keeps its seq and frames as
   * they are), else merged into the session's open interval.
   */
  addBatch(sessionId: string, batch: MeterBatch, attempted: boolean): void {
    if (!Number.isSafeInteger(batch.seq) || batch.seq < 1 || !Number.isSafeInteger(batch.frames) || batch.frames < 0) {
      throw new RangeError(`invalid meter batch seq=${batch.seq} frames=${batch.frames}`);
    }
    const pending = this.entry(sessionId);
    if (pending.close !== null) throw new Error(`session ${sessionId} was closed before meter batch ${batch.seq}`);
    const last = pending.intervals[pending.intervals.length - 1];
    if (last !== undefined && batch.seq <= last.seq) {
      throw new Error(`session ${sessionId}: meter batch ${batch.seq} is not after batch ${last.seq}`);
    }
    if (!attempted && last !== undefined && !last.frozen) {
      last.frames += batch.frames;
      last.tokens = sumTokens(last.tokens, batch.tokens);
      return;
    }
    pending.intervals.push({ ...batchOf(batch), frozen: attempted });
  }

  /** Keeps the session's close record, to be written after its batches. */
  setClose(sessionId: string, close: C): void {
    this.entry(sessionId).close = close;
  }

  /** The sessions with something to write, oldest first. */
  sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  /** The session's next write; a batch returned here is frozen (its write is about to be attempted). */
  next(sessionId: string): PendingWrite<C> | null {
    const pending = this.sessions.get(sessionId);
    if (pending === undefined) return null;
    const head = pending.intervals[0];
    if (head !== undefined) {
      head.frozen = true;
      return { kind: 'batch', batch: batchOf(head) };
    }
    if (pending.close !== null) return { kind: 'close', close: pending.close };
    return null;
  }

  /** The batch `seq` is stored: it is forgotten, and so is the session once nothing of it waits. */
  batchWritten(sessionId: string, seq: number): void {
    const pending = this.sessions.get(sessionId);
    if (pending?.intervals[0]?.seq !== seq) return;
    pending.intervals.shift();
    if (pending.intervals.length === 0 && pending.close === null) this.sessions.delete(sessionId);
  }

  /** The close is recorded: the session is forgotten. */
  closeWritten(sessionId: string): void {
    const pending = this.sessions.get(sessionId);
    if (pending !== undefined && pending.intervals.length === 0) this.sessions.delete(sessionId);
  }

  snapshot(): PendingUsageSnapshot<C> {
    return {
      sessions: [...this.sessions].map(([sessionId, pending]) => ({
        sessionId,
        batches: pending.intervals.map(batchOf),
        close: pending.close,
      })),
    };
  }

  /**
   * Takes back what an earlier process saved. Every batch comes back frozen: its write may have been
   * tried after the snapshot, so it must be written again with the same id and frames.
   */
  restore(snapshot: PendingUsageSnapshot<C>): void {
    for (const saved of snapshot.sessions) {
      if (this.sessions.has(saved.sessionId)) continue;
      this.sessions.set(saved.sessionId, {
        intervals: saved.batches.map((batch) => ({ ...batchOf(batch), frozen: true })),
        close: saved.close,
      });
    }
  }

  stats(): PendingUsageStats {
    let batches = 0;
    let frames = 0;
    let closes = 0;
    for (const pending of this.sessions.values()) {
      batches += pending.intervals.length;
      for (const interval of pending.intervals) frames += interval.frames;
      if (pending.close !== null) closes++;
    }
    return { sessions: this.sessions.size, batches, frames, closes };
  }

  private entry(sessionId: string): SessionPending<C> {
    let pending = this.sessions.get(sessionId);
    if (pending === undefined) {
      pending = { intervals: [], close: null };
      this.sessions.set(sessionId, pending);
    }
    return pending;
  }
}

function batchOf({ seq, frames, tokens }: PendingBatch): PendingBatch {
  return tokens === undefined ? { seq, frames } : { seq, frames, tokens };
}

function sumTokens(a: TextTokens | undefined, b: TextTokens | undefined): TextTokens | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { input: a.input + b.input, output: a.output + b.output };
}
