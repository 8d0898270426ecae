interface Waiting<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/**
 * One statement for many callers, as databases group commits: a call that finds fewer than
 * `maxInFlight` statements running runs at once, alone; calls that arrive while all are running
 * wait, and the next statement takes every call that waited (up to `maxBatch`). Under load, N
 * round trips, snapshots and commits become one, and latency never waits on a timer.
 * A batch that fails as a whole is retried one call per statement, so a call that fails fails alone.
 */
export class StatementBatcher<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private inFlight = 0;
  private lingering: NodeJS.Timeout | undefined;

  /**
   * `run` answers for every item, in order; `onBatchFailed` hears of a batch about to be retried.
   * `lingerMs` > 0 lets a call that would run alone wait that long for others to join it (for work
   * where throughput matters and latency does not, such as metering); a full batch goes at once.
   */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxInFlight: number,
    private readonly maxBatch: number,
    private readonly onBatchFailed: (error: unknown, size: number) => void = () => undefined,
    private readonly lingerMs = 0,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.lingerMs > 0 && this.waiting.length < this.maxBatch) {
        this.lingering ??= setTimeout(() => {
          this.lingering = undefined;
          this.dispatch();
        }, this.lingerMs);
        return;
      }
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.inFlight++;
      void this.settle(batch).finally(() => {
        this.inFlight--;
        this.dispatch();
      });
    }
  }

  private async settle(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const results = await this.runChecked(batch.map((call) => call.item));
      batch.forEach((call, i) => call.resolve(results[i]));
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      this.onBatchFailed(error, batch.length);
      // One at a time, so the retry holds no more connections than the batch did.
      for (const call of batch) {
        try {
          call.resolve((await this.runChecked([call.item]))[0]);
        } catch (alone) {
          call.reject(alone);
        }
      }
    }
  }

  private async runChecked(items: I[]): Promise<O[]> {
    const results = await this.run(items);
    if (results.length !== items.length) {
      throw new Error(`a batch of ${items.length} was answered with ${results.length} results`);
    }
    return results;
  }
}
