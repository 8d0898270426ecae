import { StatementBatcher } from './statement-batcher';

/** A statement that the test finishes by hand, recording what each run was given. */
function manualStatement() {
  const runs: { items: number[]; finish: () => void; fail: (error: Error) => void }[] = [];
  const run = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      runs.push({ items, finish: () => resolve(items.map((i) => `r${i}`)), fail: reject });
    });
  return { runs, run };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('StatementBatcher', () => {
  it('runs a call at once while a statement slot is free', async () => {
    const { runs, run } = manualStatement();
    const batcher = new StatementBatcher(run, 2, 10);
    const a = batcher.submit(1);
    const b = batcher.submit(2);
    expect(runs.map((r) => r.items)).toEqual([[1], [2]]);
    runs.forEach((r) => r.finish());
    await expect(Promise.all([a, b])).resolves.toEqual(['r1', 'r2']);
  });

  it('lets a call linger for others when asked to, and sends a full batch at once', async () => {
    jest.useFakeTimers();
    try {
      const { runs, run } = manualStatement();
      const batcher = new StatementBatcher(run, 2, 3, undefined, 100);
      const first = [1, 2].map((i) => batcher.submit(i));
      expect(runs).toEqual([]);
      jest.advanceTimersByTime(100);
      expect(runs.map((r) => r.items)).toEqual([[1, 2]]);
      const full = [3, 4, 5].map((i) => batcher.submit(i));
      expect(runs.map((r) => r.items)).toEqual([
        [1, 2],
        [3, 4, 5],
      ]);
      runs.forEach((r) => r.finish());
      await expect(Promise.all([...first, ...full])).resolves.toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('batches the calls that waited, in arrival order, up to the batch size', async () => {
    const { runs, run } = manualStatement();
    const batcher = new StatementBatcher(run, 1, 3);
    const results = [1, 2, 3, 4, 5, 6].map((i) => batcher.submit(i));
    expect(runs.map((r) => r.items)).toEqual([[1]]);
    runs[0].finish();
    await flush();
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3, 4]]);
    runs[1].finish();
    await flush();
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3, 4], [5, 6]]);
    runs[2].finish();
    await expect(Promise.all(results)).resolves.toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  });

  it('retries a failed batch one call per statement, so only the failing call fails', async () => {
    const run = jest.fn(async (items: number[]) => {
      if (items.includes(2)) throw new Error(`bad ${items.join(',')}`);
      return items.map((i) => `r${i}`);
    });
    const gate = manualStatement();
    const failures: string[] = [];
    const batcher = new StatementBatcher(
      (items: number[]) => (items[0] === 0 ? gate.run(items) : run(items)),
      1,
      10,
      (error, size) => failures.push(`${(error as Error).message} (${size})`),
    );
    const first = batcher.submit(0);
    const rest = [1, 2, 3].map((i) => batcher.submit(i).catch((e: Error) => e.message));
    gate.runs[0].finish();
    await expect(first).resolves.toBe('r0');
    await expect(Promise.all(rest)).resolves.toEqual(['r1', 'bad 2', 'r3']);
    expect(run.mock.calls.map(([items]) => items)).toEqual([[1, 2, 3], [1], [2], [3]]);
    expect(failures).toEqual(['bad 1,2,3 (3)']); // the batch, not the call that failed alone
  });

  it('refuses an answer that does not cover every call', async () => {
    const batcher = new StatementBatcher(async () => [], 1, 10);
    await expect(batcher.submit(1)).rejects.toThrow('a batch of 1 was answered with 0 results');
  });

  it('keeps no more statements running than allowed, also while retrying', async () => {
    let running = 0;
    let most = 0;
    const batcher = new StatementBatcher(
      async (items: number[]) => {
        most = Math.max(most, ++running);
        await flush();
        running--;
        if (items.length > 1) throw new Error('batch refused');
        return items;
      },
      2,
      4,
    );
    const all = Array.from({ length: 20 }, (_, i) => batcher.submit(i));
    await expect(Promise.all(all)).resolves.toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(2);
  });
});
