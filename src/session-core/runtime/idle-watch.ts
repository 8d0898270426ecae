import {
  systemClock,
  type ClockPort,
  type SessionConfig,
  type SessionRuntime,
  type TimerHandle,
} from '../../../../session-core';

/** Deepgram ends a socket that sends nothing for 10 s. */
export const LISTEN_IDLE_MS = 10_000;

/** A Deepgram socket's session starts on connect and ends when the client goes quiet (`idle`). */
export function startWatchingIdle(
  runtime: SessionRuntime,
  config: SessionConfig,
  clock: ClockPort = systemClock,
  idleMs: number = LISTEN_IDLE_MS,
): IdleWatch {
  runtime.handle({ type: 'start', config, implicit: true });
  const idle = new IdleWatch(clock, idleMs, () => void runtime.end({ kind: 'idle' }));
  void runtime.done.then(() => idle.stop());
  return idle;
}

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
