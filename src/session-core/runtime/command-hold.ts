/**
 * The hold of one session's client commands while a start or an engine reopen is in flight: a
 * client that streams without waiting for `session.started` loses nothing, and appends reach the
 * new stream. A dialect's own requests (a conversation's items and responses) are held in the same
 * order, as work to run. Bounded, because a client that never stops sending would otherwise grow it
 * forever.
 */
import type { SessionCommand } from '../model/session.commands';
import type { Effect } from '../model/session.effects';

/** A client command, or a dialect's own request as the work that handles it. */
export type HeldEntry = SessionCommand | (() => void);

export interface CommandHoldHooks {
  /** Hands a command to the session now. */
  readonly dispatchNow: (command: SessionCommand) => void;
  readonly run: (effects: readonly Effect[]) => void;
  /** The session is closing or closed: nothing held is replayed into it. */
  readonly ended: () => boolean;
  /** The hold is full: the client is told so and the session ends (`held_events`). */
  readonly overflow: () => void;
}

export class CommandHold {
  private held: HeldEntry[] | null = null;

  constructor(
    private readonly maxHeld: number,
    private readonly hooks: CommandHoldHooks,
  ) {}

  dispatch(entry: HeldEntry): void {
    if (this.held === null) return typeof entry === 'function' ? entry() : this.hooks.dispatchNow(entry);
    if (this.held.length < this.maxHeld) this.held.push(entry);
    else this.hooks.overflow();
  }

  /** A broken limit ends the session: what was held is refused with it. */
  drop(): void {
    this.held = null;
  }

  /**
   * Commands that arrive while `work` runs are held, and handled after its effects, in order. The
   * machine asks for one start or reopen at a time (the hold keeps every command from it meanwhile).
   */
  async around(work: () => Promise<readonly Effect[]>): Promise<void> {
    if (this.held !== null) throw new Error('a start or reopen is already in flight');
    const held: HeldEntry[] = [];
    this.held = held;
    let effects: readonly Effect[];
    try {
      effects = await work();
    } finally {
      if (this.held === held) this.held = null;
    }
    this.hooks.run(effects);
    // A broken limit dropped the hold and ended the session meanwhile: nothing is replayed then.
    if (this.hooks.ended()) return;
    for (let i = 0; i < held.length; i++) {
      // A replayed command started another reopen: it holds the rest, ahead of what arrives later.
      if (this.held !== null) return void this.held.unshift(...held.slice(i));
      this.dispatch(held[i]);
    }
  }
}
