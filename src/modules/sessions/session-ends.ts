import { Inject, Injectable } from '@nestjs/common';
import { SESSION_END_SIGNALS, type SessionEndSignals } from './signals/session-end-signals';

/** What DELETE /v1/sessions/{id} asks the holder of a session's socket to end. */
export interface SessionToEnd {
  id: string;
  projectId: string;
  /** The instance that holds the session's socket, as recorded on the session row (null if unknown). */
  instanceId: string | null;
}

/** Ends the session if this instance holds its socket; says whether it did. */
export type SessionHolder = (sessionId: string) => Promise<boolean>;

/**
 * The way from a DELETE to the socket that holds the session, on this instance or another. The
 * sessions module owns it and the socket layer subscribes as the holder, so the dependency points
 * from the gateway to this module and never back. The holder sends `session.closed` with reason
 * `close_requested`, records the close and the usage, and closes the socket.
 */
@Injectable()
export class SessionEnds {
  private readonly holders: SessionHolder[] = [];

  constructor(@Inject(SESSION_END_SIGNALS) private readonly signals: SessionEndSignals) {}

  /**
   * Ended at once when held here (the DELETE answers after the close is recorded); otherwise its
   * holder hears the signal, or sees the deletion on its next heartbeat. Resolves once handed over.
   */
  async request(session: SessionToEnd): Promise<void> {
    for (const holder of this.holders) if (await holder(session.id)) return;
    await this.signals.publish(session.id);
  }

  /**
   * Subscribes a holder of sockets: to requests made on this instance, to the signals of the others,
   * and to the gaps in which signals may have been lost (`onGap`: ask the database instead).
   */
  hold(holder: SessionHolder, onGap: () => void): void {
    this.holders.push(holder);
    this.signals.subscribe((id) => void holder(id));
    this.signals.onGap(onGap);
  }

  /** After the sockets are drained: the listening connection is the last thing the signals hold. */
  close(): Promise<void> {
    return this.signals.close();
  }
}
