import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import { AppConfig } from '../../config/app-config';
import { SnapshotFile } from '../../platform/snapshot-file';
import { DatabaseAvailability, isDatabaseConnectionError } from '../../platform/database/database-availability';
import {
  PendingUsage,
  framesToSeconds,
  type CloseReason,
  type MeterBatch,
  type PendingUsageSnapshot,
  type PendingUsageStats,
} from '../../session-core';
import { SessionsService } from '../sessions';
import { MeterService } from './meter.service';

/** A session's close, kept while the database is away: written after its last meter batch. */
export interface PendingClose {
  readonly reason: CloseReason;
  readonly endedAtMs: number;
}

/** How many sessions' writes go at once while writing back (the meter statement batches them). */
const WRITE_BACK_WIDTH = 200;
/** While something waits and the database is up (a write that failed during a flap), retry this often. */
const RETRY_MS = 1000;
/** What is kept is saved to DATA_DIR this often at most: a crash during an outage loses at most this much. */
const SAVE_EVERY_MS = 100;

/**
 * Metering and close records that outlive a database outage. A meter batch or a close that cannot be
 * written because the database is away (or whose write died with its connection, outcome unknown) is
 * kept in a PendingUsage, and so is everything of that session that follows it; when the database
 * returns they are written back oldest first, each batch with the id it was first tried with (the meter
 * function ignores a second write of an id), then the session's close with its real end time. Memory:
 * at most two batch counts and a close per session live at the outage (no session can be admitted
 * while it lasts), whatever its length. What is kept is also saved in DATA_DIR (at most every 100 ms),
 * and written back by the next start if the process dies first: a crash during an outage then loses
 * what was counted in the last 100 ms, as a crash outside one loses the batch being written.
 */
@Injectable()
export class PendingUsageWriter implements OnModuleInit {
  private readonly logger = new Logger('PendingUsage');
  private readonly pending = new PendingUsage<PendingClose>();
  private flushing: Promise<string> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private peak: PendingUsageStats = { sessions: 0, batches: 0, frames: 0, closes: 0 };
  private readonly saved: SnapshotFile<PendingUsageSnapshot<PendingClose>>;
  private saveFailed = false;

  constructor(
    private readonly availability: DatabaseAvailability,
    private readonly meter: MeterService,
    private readonly sessions: SessionsService,
    config: AppConfig,
  ) {
    this.saved = new SnapshotFile(join(config.dataDir, 'pending-usage.json'), SAVE_EVERY_MS, (error) => {
      // Without a writable DATA_DIR, what is kept lives in memory only (docs/api.md says what that risks).
      if (!this.saveFailed) this.logger.warn({ err: error }, `cannot keep pending usage in ${this.saved.path}`);
      this.saveFailed = true;
    });
  }

  onModuleInit(): void {
    this.availability.onUp(() => this.flush());
    const left = this.saved.load();
    if (left === null || left.sessions.length === 0) return;
    // An earlier process died while usage waited for the database: it is written back like any other.
    this.pending.restore(left);
    const { sessions, frames, closes } = this.pending.stats();
    this.logger.warn(
      `writing back usage an earlier process kept: ${frames} frames of ${sessions} session(s), ${closes} close(s)`,
    );
    if (this.availability.isUp) void this.flush();
  }

  /** The largest the store has been since the start (for the report and the tests). */
  get largest(): PendingUsageStats {
    return this.peak;
  }

  get stats(): PendingUsageStats {
    return this.pending.stats();
  }

  /** Writes a batch, or keeps it if the database is away; rejects only on other failures. */
  async recordBatch(sessionId: string, batch: MeterBatch): Promise<'written' | 'kept'> {
    if (this.pending.holds(sessionId) || !this.availability.isUp) {
      this.keep(() => this.pending.addBatch(sessionId, batch, false));
      return 'kept';
    }
    try {
      await this.meter.recordBatch(sessionId, batch.seq, batch.frames, batch.tokens);
      return 'written';
    } catch (error) {
      if (!isDatabaseConnectionError(error, true)) throw error;
      this.availability.reportFailure(error);
      this.keep(() => this.pending.addBatch(sessionId, batch, true));
      return 'kept';
    }
  }

  /** Records a close after the session's batches, or keeps it if they or the database wait. */
  async recordClose(sessionId: string, close: PendingClose): Promise<'written' | 'kept'> {
    if (this.pending.holds(sessionId) || !this.availability.isUp) {
      this.keep(() => this.pending.setClose(sessionId, close));
      return 'kept';
    }
    try {
      await this.sessions.markClosed(sessionId, close.reason, new Date(close.endedAtMs));
      return 'written';
    } catch (error) {
      if (!isDatabaseConnectionError(error, true)) throw error;
      this.availability.reportFailure(error);
      this.keep(() => this.pending.setClose(sessionId, close));
      return 'kept';
    }
  }

  /** Writes back what waits, oldest first; resolves with what it wrote (for the recovery line). */
  flush(): Promise<string> {
    this.flushing ??= this.writeBack().finally(() => (this.flushing = null));
    return this.flushing;
  }

  /**
   * At shutdown: tries to write back what waits until `deadlineMs`; what is still kept then is lost
   * with the process, and said so in one error line (sessions, frames, closes).
   */
  async flushBefore(deadlineMs: number): Promise<void> {
    while (!this.pending.isEmpty && Date.now() < deadlineMs) {
      if (this.availability.isUp) await this.flush();
      if (!this.pending.isEmpty) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.isEmpty) return;
    this.saved.flush();
    const { sessions, frames, closes } = this.pending.stats();
    this.logger.error(
      `shutting down with usage not written (the database is away): ${frames} frames ` +
        `(${framesToSeconds(frames).toFixed(2)} s) of ${sessions} session(s), ${closes} close(s); ` +
        (this.saveFailed
          ? "those sessions are closed by another instance's reaper with the usage written before"
          : `kept in ${this.saved.path}: the next start with this DATA_DIR writes it back`),
    );
  }

  private keep(add: () => void): void {
    add();
    this.save();
    const now = this.pending.stats();
    if (now.frames + now.sessions > this.peak.frames + this.peak.sessions) this.peak = now;
    this.timer ??= setTimeout(() => {
      this.timer = null;
      if (this.pending.isEmpty) return;
      if (this.availability.isUp) void this.flush();
      else this.keep(() => undefined);
    }, RETRY_MS);
    this.timer.unref();
  }

  /** The file follows the store: saved while something waits, removed once nothing does. */
  private save(): void {
    if (this.pending.isEmpty) this.saved.remove();
    else this.saved.save(() => this.pending.snapshot());
  }

  private async writeBack(): Promise<string> {
    let batches = 0;
    let frames = 0;
    let closes = 0;
    const sessions = new Set<string>();
    while (!this.pending.isEmpty && this.availability.isUp) {
      // One round: the oldest write of every waiting session, WRITE_BACK_WIDTH sessions at a time.
      const ids = this.pending.sessionIds();
      let progressed = false;
      for (let at = 0; at < ids.length && this.availability.isUp; at += WRITE_BACK_WIDTH) {
        const results = await Promise.all(
          ids.slice(at, at + WRITE_BACK_WIDTH).map(async (id) => {
            const write = this.pending.next(id);
            if (write === null) return false;
            try {
              if (write.kind === 'batch') {
                await this.meter.recordBatch(id, write.batch.seq, write.batch.frames, write.batch.tokens);
                this.pending.batchWritten(id, write.batch.seq);
                batches++;
                frames += write.batch.frames;
              } else {
                await this.sessions.markClosed(id, write.close.reason, new Date(write.close.endedAtMs));
                this.pending.closeWritten(id);
                closes++;
              }
              sessions.add(id);
              return true;
            } catch (error) {
              if (isDatabaseConnectionError(error, true)) {
                this.availability.reportFailure(error);
                return false;
              }
              // Not the database's absence (a session row gone, say): writing it again cannot help.
              this.logger.error({ err: error, sessionId: id }, `could not write back ${write.kind}; dropped`);
              if (write.kind === 'batch') this.pending.batchWritten(id, write.batch.seq);
              else this.pending.closeWritten(id);
              return true;
            }
          }),
        );
        progressed ||= results.some(Boolean);
      }
      if (!progressed) break;
    }
    this.save();
    if (!this.pending.isEmpty) this.keep(() => undefined);
    if (batches === 0 && closes === 0) return '';
    return (
      `wrote back ${batches} meter batch(es) (${frames} frames, ${framesToSeconds(frames).toFixed(2)} s) ` +
      `and ${closes} close(s) of ${sessions.size} session(s)`
    );
  }
}
