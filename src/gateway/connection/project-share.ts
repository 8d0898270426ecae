import { AppError } from '../../platform/errors/app-error';
import type { ClockPort, TimerHandle } from '../../session-core';

/** A socket admitted for a project: released when its session is done, or when the upgrade never happens. */
export interface ShareClaim {
  /** The socket connected: the claim now lasts until `release()`. */
  bind(): void;
  release(): void;
}

/** How long an admitted socket may take to connect before its claim lapses (a refused or dropped upgrade). */
const UNBOUND_CLAIM_MS = 10_000;

/**
 * The fair share of one instance's engine streams: a project holds at most `perProject` of this
 * instance's sockets, so one project cannot take every stream while another waits (docs/api.md, "Fair
 * share"). Counted per socket from its admission, since a socket is a stream it may start at any moment;
 * counted locally, since the streams are this instance's own.
 */
export class ProjectShare {
  private readonly held = new Map<string, number>();

  constructor(
    readonly perProject: number,
    private readonly clock: ClockPort,
  ) {}

  /** Throws 503 `capacity_exhausted` when the project already holds its share of this instance. */
  claim(projectId: string): ShareClaim {
    const held = this.held.get(projectId) ?? 0;
    if (held >= this.perProject) {
      throw new AppError(
        'capacity_exhausted',
        `This project already holds its share of this instance's speech streams (${this.perProject}); retry shortly`,
        { retryAfterMs: 1000 },
      );
    }
    this.held.set(projectId, held + 1);
    let released = false;
    let lapse: TimerHandle | null = this.clock.setTimer(() => release(), UNBOUND_CLAIM_MS);
    const release = (): void => {
      if (released) return;
      released = true;
      if (lapse !== null) this.clock.clearTimer(lapse);
      const left = (this.held.get(projectId) ?? 1) - 1;
      if (left > 0) this.held.set(projectId, left);
      else this.held.delete(projectId);
    };
    return {
      bind: () => {
        if (lapse !== null) this.clock.clearTimer(lapse);
        lapse = null;
      },
      release,
    };
  }

  holding(projectId: string): number {
    return this.held.get(projectId) ?? 0;
  }
}
