/**
 * Cross-instance signalling for DELETE: the instance that hides a session asks whichever instance holds
 * its socket to end it. With PostgreSQL that is LISTEN/NOTIFY (the holder hears it within a round trip);
 * the embedded database has no LISTEN/NOTIFY and only one instance, so there it is in-process. The
 * heartbeat (every 5 s) still reports deleted sessions, as the fallback for a lost notification.
 */
export interface SessionEndSignals {
  /** Asks the holder of this session's socket, on any instance, to end it. */
  publish(sessionId: string): Promise<void>;
  /** Called with the id of every session some instance asked to end (including this one). */
  subscribe(listener: (sessionId: string) => void): void;
  /** Called when signals may have been lost (a dropped LISTEN connection came back). */
  onGap(listener: () => void): void;
  close(): Promise<void>;
}

export const SESSION_END_SIGNALS = Symbol('SESSION_END_SIGNALS');

/** One instance on the embedded database: the request is delivered in the same process. */
export class InProcessSessionEndSignals implements SessionEndSignals {
  private readonly listeners: ((sessionId: string) => void)[] = [];

  async publish(sessionId: string): Promise<void> {
    for (const listener of this.listeners) listener(sessionId);
  }

  subscribe(listener: (sessionId: string) => void): void {
    this.listeners.push(listener);
  }

  onGap(): void {
    // Nothing is ever lost in-process.
  }

  async close(): Promise<void> {}
}
