/**
 * A ClockHost whose time moves only when a test says so (or when a callback under test says so,
 * to play a slow tick). Wake-ups run in order: "soon" ones first (they stand for setImmediate),
 * then timed ones as time reaches them.
 */
import type { ClockHost } from '../clock-host';

interface Wake {
  readonly at: number;
  readonly soon: boolean;
  readonly wake: () => void;
  cancelled: boolean;
}

export class ManualClockHost implements ClockHost {
  private mono: number;
  private wakes: Wake[] = [];
  /** Wake-ups run so far, and how many of them were "soon" (a turn going on after I/O). */
  woken = 0;
  wokenSoon = 0;

  constructor(
    startMs = 1000,
    private readonly epochOffsetMs = 1_767_225_600_000,
  ) {
    this.mono = startMs;
  }

  monotonicMs(): number {
    return this.mono;
  }

  epochMs(): number {
    return this.epochOffsetMs + this.mono;
  }

  wakeAfter(delayMs: number, wake: () => void): () => void {
    return this.add({ at: this.mono + Math.max(0, delayMs), soon: false, wake, cancelled: false });
  }

  wakeSoon(wake: () => void): () => void {
    return this.add({ at: this.mono, soon: true, wake, cancelled: false });
  }

  /** Wake-ups armed and not yet run. */
  get pending(): number {
    return this.wakes.filter((w) => !w.cancelled).length;
  }

  /** Time passes with nothing running (as inside a slow callback). */
  spend(ms: number): void {
    this.mono += ms;
  }

  /** Moves time forward by `ms`, running every wake-up that comes due on the way. */
  advance(ms: number): void {
    const target = this.mono + ms;
    for (;;) {
      const next = this.next(target);
      if (next === null) break;
      this.wakes = this.wakes.filter((w) => w !== next);
      this.mono = Math.max(this.mono, next.at);
      this.woken++;
      if (next.soon) this.wokenSoon++;
      next.wake();
    }
    this.mono = Math.max(this.mono, target);
  }

  /** Runs only the next wake-up, whenever it is due (time jumps to it); false when none is armed. */
  step(): boolean {
    const next = this.next(Number.POSITIVE_INFINITY);
    if (next === null) return false;
    this.wakes = this.wakes.filter((w) => w !== next);
    this.mono = Math.max(this.mono, next.at);
    this.woken++;
    if (next.soon) this.wokenSoon++;
    next.wake();
    return true;
  }

  private add(wake: Wake): () => void {
    this.wakes.push(wake);
    return () => {
      wake.cancelled = true;
      this.wakes = this.wakes.filter((w) => w !== wake);
    };
  }

  private next(target: number): Wake | null {
    const live = this.wakes.filter((w) => !w.cancelled);
    const soon = live.find((w) => w.soon);
    if (soon) return soon;
    let best: Wake | null = null;
    for (const w of live) if (w.at <= target && (best === null || w.at < best.at)) best = w;
    return best;
  }
}
