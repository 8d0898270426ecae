/**
 * A ClockPort whose time moves only when a test says so. Timers fire in due order, each at its
 * own time, including timers set by other timers inside the advanced window.
 */
import type { ClockPort, TimerHandle } from '../runtime/ports';

interface FakeTimer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

export class FakeClock implements ClockPort {
  private nowMs: number;
  private nextId = 1;
  private timers: FakeTimer[] = [];

  constructor(startMs = 1_767_225_600_000) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.nowMs + Math.max(0, delayMs), callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing due timers synchronously. */
  advance(ms: number): void {
    const target = this.nowMs + ms;
    for (let timer = this.nextDue(target); timer !== null; timer = this.nextDue(target)) {
      this.timers = this.timers.filter((t) => t !== timer);
      this.nowMs = Math.max(this.nowMs, timer.at);
      timer.callback();
    }
    this.nowMs = target;
  }

  /** Like advance(), letting promise callbacks run between timers (for async code under test). */
  async advanceAsync(ms: number, stepMs = 10): Promise<void> {
    for (let left = ms; left > 0; left -= stepMs) {
      this.advance(Math.min(stepMs, left));
      await settle();
    }
  }

  private nextDue(target: number): FakeTimer | null {
    let due: FakeTimer | null = null;
    for (const timer of this.timers) {
      if (timer.at <= target && (due === null || timer.at < due.at || (timer.at === due.at && timer.id < due.id)))
        due = timer;
    }
    return due;
  }
}

/** Lets every pending promise callback (and I/O-free async step) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
