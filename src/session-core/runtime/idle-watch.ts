import type { ClockPort, TimerHandle } from './ports';

/**
 * Calls `onIdle` once nothing has been seen for `idleMs`. One timer per watch, re-armed for what is
 * left when it fires early, rather than one per frame: `seen()` is a clock read and a store.
 */
export class IdleWatch {
  private lastSeenAt: number;
  private timer: TimerHandle | null = null;

  constructor(
    private readonly clock: ClockPort,
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.lastSeenAt = clock.now();
    this.arm(idleMs);
  }

  seen(): void {
    this.lastSeenAt = this.clock.now();
  }

  stop(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private arm(delayMs: number): void {
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      const idle = this.clock.now() - this.lastSeenAt;
      if (idle < this.idleMs) return this.arm(this.idleMs - idle);
      this.onIdle();
    }, delayMs);
  }
}
