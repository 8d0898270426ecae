/**
 * The sessions this instance holds, by id: DELETE reaches a session's socket through it, and
 * shutdown ends them all and waits until each is recorded closed (never left `active`).
 */
import type { CloseCause } from '../model/close-causes';
import type { SessionRuntime } from './session.runtime';

export class SessionRegistry {
  private readonly sessions = new Map<string, SessionRuntime>();

  get size(): number {
    return this.sessions.size;
  }

  /** Tracks the runtime until it is done. */
  add(runtime: SessionRuntime): void {
    this.sessions.set(runtime.sessionId, runtime);
    void runtime.done.then(() => {
      if (this.sessions.get(runtime.sessionId) === runtime) this.sessions.delete(runtime.sessionId);
    });
  }

  ids(): string[] {
    return [...this.sessions.keys()];
  }

  get(sessionId: string): SessionRuntime | undefined {
    return this.sessions.get(sessionId);
  }

  /** False when the session is not held here (another instance, or already over). */
  async end(sessionId: string, cause: CloseCause): Promise<boolean> {
    const runtime = this.sessions.get(sessionId);
    if (runtime === undefined) return false;
    await runtime.end(cause);
    return true;
  }

  async endAll(cause: CloseCause): Promise<void> {
    await Promise.all([...this.sessions.values()].map((runtime) => runtime.end(cause)));
  }
}
