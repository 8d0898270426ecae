import { PendingUsage } from './pending-usage';

describe('PendingUsage', () => {
  it('merges batches queued without an attempt into one interval that keeps the first seq', () => {
    const store = new PendingUsage<string>();
    for (let seq = 1; seq <= 5; seq++) store.addBatch('s1', { seq, frames: 10 }, false);
    expect(store.stats()).toEqual({ sessions: 1, batches: 1, frames: 50, closes: 0 });
    expect(store.next('s1')).toEqual({ kind: 'batch', batch: { seq: 1, frames: 50 } });
  });

  it('keeps the text tokens of merged batches, summed, and through a snapshot', () => {
    const store = new PendingUsage<string>();
    store.addBatch('s1', { seq: 1, frames: 10 }, false);
    store.addBatch('s1', { seq: 2, frames: 0, tokens: { input: 40, output: 5 } }, false);
    store.addBatch('s1', { seq: 3, frames: 2, tokens: { input: 60, output: 7 } }, false);
    const merged = { seq: 1, frames: 12, tokens: { input: 100, output: 12 } };
    expect(store.next('s1')).toEqual({ kind: 'batch', batch: merged });
    const restored = new PendingUsage<string>();
    restored.restore(store.snapshot());
    expect(restored.next('s1')).toEqual({ kind: 'batch', batch: merged });
  });

  it('never changes a batch once its write was attempted: a retry has the same id and frames', () => {
    const store = new PendingUsage<string>();
    store.addBatch('s1', { seq: 7, frames: 10 }, true); // the write failed, outcome unknown
    store.addBatch('s1', { seq: 8, frames: 10 }, false);
    store.addBatch('s1', { seq: 9, frames: 4 }, false);
    const first = store.next('s1');
    expect(first).toEqual({ kind: 'batch', batch: { seq: 7, frames: 10 } });
    // The write back fails too: the next attempt is the same write.
    expect(store.next('s1')).toEqual(first);
    store.batchWritten('s1', 7);
    const second = store.next('s1'); // now frozen
    store.addBatch('s1', { seq: 10, frames: 10 }, false); // arrives while it is being written
    expect(second).toEqual({ kind: 'batch', batch: { seq: 8, frames: 14 } });
    expect(store.next('s1')).toEqual(second);
    store.batchWritten('s1', 8);
    expect(store.next('s1')).toEqual({ kind: 'batch', batch: { seq: 10, frames: 10 } });
  });

  it('writes a close only after every batch of its session, then forgets the session', () => {
    const store = new PendingUsage<{ reason: string }>();
    store.addBatch('s1', { seq: 1, frames: 10 }, true);
    store.addBatch('s1', { seq: 2, frames: 3 }, false);
    store.setClose('s1', { reason: 'close_requested' });
    const written: unknown[] = [];
    for (let write = store.next('s1'); write !== null; write = store.next('s1')) {
      written.push(write);
      if (write.kind === 'batch') store.batchWritten('s1', write.batch.seq);
      else store.closeWritten('s1');
    }
    expect(written).toEqual([
      { kind: 'batch', batch: { seq: 1, frames: 10 } },
      { kind: 'batch', batch: { seq: 2, frames: 3 } },
      { kind: 'close', close: { reason: 'close_requested' } },
    ]);
    expect(store.isEmpty).toBe(true);
    expect(store.holds('s1')).toBe(false);
  });

  it('lists sessions oldest first, and keeps a written session out until it waits again', () => {
    const store = new PendingUsage<string>();
    store.addBatch('b', { seq: 1, frames: 1 }, false);
    store.addBatch('a', { seq: 1, frames: 1 }, false);
    store.addBatch('c', { seq: 1, frames: 1 }, false);
    expect(store.sessionIds()).toEqual(['b', 'a', 'c']);
    store.next('b');
    store.batchWritten('b', 1);
    store.addBatch('b', { seq: 2, frames: 1 }, false);
    expect(store.sessionIds()).toEqual(['a', 'c', 'b']);
  });

  it('refuses batches out of order and batches after the close', () => {
    const store = new PendingUsage<string>();
    store.addBatch('s', { seq: 3, frames: 1 }, true);
    expect(() => store.addBatch('s', { seq: 3, frames: 1 }, false)).toThrow(/not after/);
    store.setClose('s', 'x');
    expect(() => store.addBatch('s', { seq: 4, frames: 1 }, false)).toThrow(/closed/);
    expect(() => store.addBatch('t', { seq: 0, frames: 1 }, false)).toThrow(RangeError);
  });

  it('stays bounded: a 10-minute outage at 1,000 sessions holds two counts per session', () => {
    const store = new PendingUsage<string>();
    const sessions = 1000;
    const batchesPerSession = (10 * 60 * 1000) / 800; // a batch every 10 frames of 80 ms
    const before = process.memoryUsage().heapUsed;
    for (let seq = 1; seq <= batchesPerSession; seq++) {
      for (let s = 0; s < sessions; s++) store.addBatch(`sess_${s}`, { seq, frames: 10 }, seq === 1);
    }
    const stats = store.stats();
    expect(stats).toEqual({ sessions, batches: 2 * sessions, frames: sessions * batchesPerSession * 10, closes: 0 });
    // Generous: the counts themselves are ~200 bytes a session; the heap may also hold garbage of the loop.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('comes back from a snapshot with every batch frozen and the close kept (a crash during an outage)', () => {
    const before = new PendingUsage<{ reason: string }>();
    before.addBatch('s1', { seq: 3, frames: 10 }, true);
    before.addBatch('s1', { seq: 4, frames: 10 }, false);
    before.addBatch('s1', { seq: 5, frames: 2 }, false);
    before.setClose('s1', { reason: 'close_requested' });
    before.addBatch('s2', { seq: 1, frames: 7 }, false);
    const saved = JSON.parse(JSON.stringify(before.snapshot()));

    const after = new PendingUsage<{ reason: string }>();
    after.restore(saved);
    expect(after.stats()).toEqual(before.stats());
    expect(after.sessionIds()).toEqual(['s1', 's2']);
    // s2's interval may have been tried just before the crash: it is not merged with anything new.
    after.addBatch('s2', { seq: 2, frames: 5 }, false);
    expect(after.next('s2')).toEqual({ kind: 'batch', batch: { seq: 1, frames: 7 } });
    after.batchWritten('s2', 1);
    expect(after.next('s2')).toEqual({ kind: 'batch', batch: { seq: 2, frames: 5 } });
    const writes: unknown[] = [];
    for (let write = after.next('s1'); write !== null; write = after.next('s1')) {
      writes.push(write);
      if (write.kind === 'batch') after.batchWritten('s1', write.batch.seq);
      else after.closeWritten('s1');
    }
    expect(writes).toEqual([
      { kind: 'batch', batch: { seq: 3, frames: 10 } },
      { kind: 'batch', batch: { seq: 4, frames: 12 } },
      { kind: 'close', close: { reason: 'close_requested' } },
    ]);
  });
});
