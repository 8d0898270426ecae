/** Where the clock gets its time and wake-ups: the process's timers, or a test's (testing/manual-clock-host.ts). */
export interface ClockHost {
  /** Monotonic milliseconds: what ticks are counted in. */
  monotonicMs(): number;
  /** Epoch milliseconds: what now() answers (session timelines are in epoch ms). */
  epochMs(): number;
  /** Calls `wake` after `delayMs` (the next tick); returns what cancels it. */
  wakeAfter(delayMs: number, wake: () => void): () => void;
  /** Calls `wake` after pending I/O has had its turn (a turn that ran out of budget goes on). */
  wakeSoon(wake: () => void): () => void;
}

/** The process's own timers: one unref'd setTimeout (or one setImmediate) at a time. */
export const processClockHost: ClockHost = {
  monotonicMs: () => performance.now(),
  epochMs: () => Date.now(),
  wakeAfter: (delayMs, wake) => {
    // Unref'd: open sockets keep the process alive, the clock alone does not.
    const timer = setTimeout(wake, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
  wakeSoon: (wake) => {
    const immediate = setImmediate(wake);
    return () => clearImmediate(immediate);
  },
};
