/**
 * Writes a session's meter batches one at a time, in seq order. A failed write is retried with
 * the same seq (the store makes it idempotent), so a retry never double-counts; after the last
 * retry the batch is logged and skipped. The database's absence never gets here: the gateway's
 * MeterPort resolves once a batch is written or kept for later (PendingUsage), so only a refusal
 * that no retry can cure (an unknown session, say) is given up on.
 */
import type { ClockPort, LoggerPort, MeterPort } from './ports';
import { errorText } from './runtime-support';
import type { MeterBatch } from '../model/session.types';

export class MeterWriter {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessionId: string,
    private readonly meter: MeterPort,
    private readonly clock: ClockPort,
    private readonly log: LoggerPort,
    private readonly retryDelaysMs: readonly number[],
  ) {}

  write(batch: MeterBatch): void {
    this.chain = this.chain.then(() => this.attempt(batch));
  }

  /**
   * Resolves once every batch is stored (or given up on), including those written while it waits
   * (a conversation's last response, billed as the session ends); never rejects.
   */
  async settled(): Promise<void> {
    let chain: Promise<void>;
    do {
      chain = this.chain;
      await chain;
    } while (chain !== this.chain);
  }

  private async attempt(batch: MeterBatch): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.meter.record(this.sessionId, batch);
      } catch (error) {
        const text = `session ${this.sessionId}: meter batch ${batch.seq} (${batch.frames} frames): ${errorText(error)}`;
        if (attempt >= this.retryDelaysMs.length) return this.log.error(`${text}; giving up`);
        this.log.warn(`${text}; retrying`);
        await new Promise<void>((resolve) => this.clock.setTimer(resolve, this.retryDelaysMs[attempt]));
      }
    }
  }
}
