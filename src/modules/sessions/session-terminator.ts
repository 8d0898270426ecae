import { Injectable } from '@nestjs/common';

/** What DELETE /v1/sessions/{id} asks the socket layer to end. */
export interface SessionToTerminate {
  id: string;
  projectId: string;
  /** The instance that holds the session's socket, as recorded on the session row (null if unknown). */
  instanceId: string | null;
}

/**
 * Ends an active session wherever its socket is: the holder sends `session.closed` with reason
 * `close_requested`, records the close and the usage, and closes the socket. Resolves once the request
 * is handed over; it need not wait for the socket to close.
 */
export interface SessionTerminator {
  terminate(session: SessionToTerminate): Promise<void>;
}

/** Inject this token to end sessions; SessionsService does so on DELETE. */
export const SESSION_TERMINATOR = Symbol('SESSION_TERMINATOR');

/**
 * The in-process default behind SESSION_TERMINATOR. Until a socket layer registers itself it does
 * nothing, which is right while no socket can hold a session. The live gateway calls register(this)
 * at start (it alone knows how to reach the other instances).
 */
@Injectable()
export class RegisteredSessionTerminator implements SessionTerminator {
  private delegate: SessionTerminator | null = null;

  register(terminator: SessionTerminator): void {
    this.delegate = terminator;
  }

  async terminate(session: SessionToTerminate): Promise<void> {
    await this.delegate?.terminate(session);
  }
}
