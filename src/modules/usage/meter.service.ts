import { Injectable } from '@nestjs/common';
import type { TextTokens } from '../../session-core';
import { ModelCatalog } from '../models';
import { MeterEventsRepository } from './meter-events.repository';

/** The id of a session's seq-th batch: the same batch always gets the same id, on any instance. */
export const meterEventId = (sessionId: string, seq: number): string => `mev_${sessionId}_${seq}`;

/**
 * The write side of metering, called by the socket runtime for every batch of frames. A batch is
 * billed once it resolves; it waits at most METER_LINGER_MS (150 ms) to share its statement, so a
 * crash loses at most the batch being written and the frames since.
 */
@Injectable()
export class MeterService {
  constructor(
    private readonly events: MeterEventsRepository,
    private readonly catalog: ModelCatalog,
  ) {}

  /**
   * Records `frames` as the session's batch number `seq` (1, 2, …) and charges it: the meter event,
   * the session's frames and cost, and the project's balance change in one statement. Retrying a
   * batch (same session and seq) changes nothing, whatever instance retries it; the first write wins.
   * The balance may go below zero: running sessions are never cut. Rejects if the session does not
   * exist or the database fails; then retry with the same seq.
   */
  async recordBatch(sessionId: string, seq: number, frames: number, tokens?: TextTokens): Promise<void> {
    if (!Number.isSafeInteger(seq) || seq < 1 || !Number.isSafeInteger(frames) || frames < 0) {
      throw new RangeError(`meter batch needs an integer seq >= 1 and frames >= 0, got seq=${seq} frames=${frames}`);
    }
    const text = tokens ?? { input: 0, output: 0 };
    if (![text.input, text.output].every((n) => Number.isSafeInteger(n) && n >= 0 && n <= 2 ** 31 - 1)) {
      throw new RangeError(`meter batch tokens must be integers in 0..2^31-1, got ${JSON.stringify(tokens)}`);
    }
    // Cost is rounded once per batch and stored with it; every view of usage sums stored costs. The
    // statement picks the session's model's cost, so the batch costs one round trip.
    const costByModel = Object.fromEntries(
      this.catalog.models.map((m) => [m.id, this.catalog.costMicros(m.id, frames, text)]),
    );
    const outcome = await this.events.recordBatch({
      id: meterEventId(sessionId, seq),
      sessionId,
      seq,
      frames,
      inputTokens: text.input,
      outputTokens: text.output,
      costByModel,
    });
    if (outcome === 'unknown_session') throw new Error(`cannot meter unknown session ${sessionId}`);
  }
}
