/**
 * Time and one-shot timers, for code below the session core that paces work (an engine playing a
 * reply): in the service this is the process's TickScheduler, so a reply's pacing shares the one
 * clock with everything else per session; where there is none (a unit test, a library user) it is
 * node's own timers. The session core's ClockPort has the same shape.
 */
export type TimerHandle = unknown;

export interface Timers {
  /** Epoch milliseconds. */
  now(): number;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export const nodeTimers: Timers = {
  now: () => Date.now(),
  setTimer: (callback, delayMs) => setTimeout(callback, Math.max(0, delayMs)),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
