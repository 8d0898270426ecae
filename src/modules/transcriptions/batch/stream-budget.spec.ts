import { StreamBudget } from './stream-budget';

describe('StreamBudget', () => {
  let capacity: { inUse: number; max: number };
  const budget = (queueSize = 2, queueTimeoutMs = 5000, maxStreams = 100) =>
    new StreamBudget(() => capacity, { queueSize, queueTimeoutMs, maxStreams });

  beforeEach(() => {
    capacity = { inUse: 0, max: 8 };
  });

  it('keeps a quarter of the streams for live sessions', async () => {
    const b = budget();
    await b.first(); // 1 granted
    let more = 0;
    while (b.more()) more++;
    expect(1 + more).toBe(6); // 8 - ceil(8 / 4)
    expect(StreamBudget.reserveOf(1)).toBe(0);
    expect(StreamBudget.reserveOf(2)).toBe(1);
  });

  it('keeps no reserve on an engine kept for batch work', async () => {
    const b = new StreamBudget(() => capacity, {
      queueSize: 2,
      queueTimeoutMs: 5000,
      maxStreams: 100,
      sharedWithLive: false,
    });
    await b.first();
    let more = 0;
    while (b.more()) more++;
    expect(1 + more).toBe(8);
  });

  it('uses at most maxStreams at once, and a released stream serves the next request', async () => {
    const b = budget(2, 5000, 2);
    await b.first();
    expect(b.more()).toBe(true);
    expect(b.more()).toBe(false); // the engine could spare 4 more
    b.settle(true);
    b.settle(true);
    let granted = false;
    const waiting = b.first().then(() => (granted = true));
    await new Promise((r) => setTimeout(r, 80));
    expect(granted).toBe(false);
    b.release();
    await waiting;
  });

  it('counts streams live sessions hold', async () => {
    capacity.inUse = 5;
    const b = budget();
    await b.first();
    expect(b.more()).toBe(false);
  });

  it('queues a request until a stream comes free, then refuses past the queue size with retry_after_ms', async () => {
    capacity.inUse = 6;
    const b = budget(1);
    let granted = false;
    const waiting = b.first().then(() => (granted = true));
    await expect(b.first()).rejects.toMatchObject({ code: 'capacity_exhausted', retryAfterMs: 2000 });
    await new Promise((r) => setTimeout(r, 120));
    expect(granted).toBe(false);
    capacity.inUse = 5; // a live session ended
    await waiting;
    expect(b.waiting).toBe(0);
  });

  it('refuses a request that waited too long', async () => {
    capacity.inUse = 8;
    await expect(budget(4, 100).first()).rejects.toMatchObject({ code: 'capacity_exhausted' });
  });

  it('does not let a running request grow while another waits', async () => {
    capacity.inUse = 5;
    const b = budget();
    const waiting = b.first();
    expect(b.more()).toBe(false);
    capacity.inUse = 4;
    await waiting;
  });
});
