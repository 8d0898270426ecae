import type { ClockPort, TimerHandle } from '../../../../session-core';

/**
 * Deepgram's idle rule: a socket that sends no frame at all for `idleMs` is ended. One timer per
 * socket, re-armed for what is left when it fires early, rather than one per frame.
 */
export class IdleWatch {
  private lastFrameAt: number;
  private timer: TimerHandle | null = null;

  constructor(
    private readonly clock: ClockPort,
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.lastFrameAt = clock.now();
    this.arm(idleMs);
  }

  frame(): void {
    this.lastFrameAt = this.clock.now();
  }

  stop(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private arm(delayMs: number): void {
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      const idle = this.clock.now() - this.lastFrameAt;
      if (idle < this.idleMs) return this.arm(this.idleMs - idle);
      this.onIdle();
    }, delayMs);
  }
}
