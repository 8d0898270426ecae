/**
 * The one-shot timers of the TickScheduler: a hashed timing wheel of `buckets` buckets, one per tick
 * (tick t in bucket t mod buckets), each an intrusive list, so that adding and removing a timer is
 * O(1) and serving a tick looks at its own bucket only. A timer further off than the wheel's span
 * waits its rounds in its bucket.
 */

/** A one-shot timer: a node of its bucket's list until it fires or is cleared. */
export class TimerEntry {
  prev: TimerEntry | null = null;
  next: TimerEntry | null = null;
  /** The bucket holding it; -1 once taken out (fired, cleared, or queued to run). */
  bucket = -1;
  cancelled = false;

  constructor(
    readonly due: number,
    readonly tick: number,
    readonly seq: number,
    readonly callback: () => void,
  ) {}

  fire(): void {
    if (!this.cancelled) this.callback();
  }
}

export class TimerWheel {
  private readonly mask: number;
  private readonly heads: (TimerEntry | null)[];
  private readonly tails: (TimerEntry | null)[];
  /** Timers in the wheel. */
  size = 0;

  constructor(buckets: number) {
    if (buckets < 2 || (buckets & (buckets - 1)) !== 0) throw new Error('wheelBuckets must be a power of two');
    this.mask = buckets - 1;
    this.heads = new Array<TimerEntry | null>(buckets).fill(null);
    this.tails = new Array<TimerEntry | null>(buckets).fill(null);
  }

  /** Ticks the wheel spans before a bucket comes round again. */
  get span(): number {
    return this.mask + 1;
  }

  add(entry: TimerEntry): void {
    const b = entry.tick & this.mask;
    entry.bucket = b;
    entry.prev = this.tails[b];
    entry.next = null;
    if (entry.prev === null) this.heads[b] = entry;
    else entry.prev.next = entry;
    this.tails[b] = entry;
    this.size++;
  }

  /** Takes a timer out if it is still in the wheel. */
  remove(entry: TimerEntry): void {
    if (entry.bucket < 0) return;
    const b = entry.bucket;
    if (entry.prev === null) this.heads[b] = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === null) this.tails[b] = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = entry.next = null;
    entry.bucket = -1;
    this.size--;
  }

  /** Whether tick `tick`'s bucket holds any timer (perhaps one of a later round). */
  busyAt(tick: number): boolean {
    return this.heads[tick & this.mask] !== null;
  }

  /** Moves tick `tick`'s bucket's timers due by then to `into` (later rounds stay). */
  takeDue(tick: number, into: { push(entry: TimerEntry): unknown }): void {
    this.takeFromBucket(tick & this.mask, tick, into);
  }

  /** Moves every timer due by `tick` to `into`, whatever its bucket (catch-up after a long stall). */
  takeAllDue(tick: number, into: { push(entry: TimerEntry): unknown }): void {
    for (let b = 0; b <= this.mask; b++) this.takeFromBucket(b, tick, into);
  }

  /** Cancels and drops every timer. */
  clear(): void {
    for (let b = 0; b <= this.mask; b++) {
      for (let e = this.heads[b]; e !== null; e = e.next) {
        e.cancelled = true;
        e.bucket = -1;
      }
      this.heads[b] = this.tails[b] = null;
    }
    this.size = 0;
  }

  private takeFromBucket(b: number, tick: number, into: { push(entry: TimerEntry): unknown }): void {
    for (let e = this.heads[b]; e !== null;) {
      const next = e.next;
      if (e.tick <= tick) {
        this.remove(e);
        into.push(e);
      }
      e = next;
    }
  }
}
