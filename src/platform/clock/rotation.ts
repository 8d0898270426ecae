/** Periodic work spread over slots of the shared clock: each tick serves one slot's members only. */

/** A rotation's slot, queued to run when its tick is served. */
export class SlotTask {
  constructor(
    private readonly rotation: Rotation<unknown>,
    readonly slot: number,
  ) {}

  fire(): void {
    this.rotation.serveSlot(this.slot);
  }
}

/** A member of a rotation; leave() takes it out at once (a slot being served skips it). */
export interface Membership {
  leave(): void;
}

class Member<T> implements Membership {
  slot = -1;
  index = -1;

  constructor(
    private readonly rotation: Rotation<T>,
    readonly value: T,
  ) {}

  leave(): void {
    this.rotation.remove(this);
  }
}

/** Periodic work spread over slots (see TickScheduler.rotation). */
export class Rotation<T> {
  private readonly slots: Member<T>[][];
  private readonly tasks: SlotTask[];

  /** @internal Built by TickScheduler.rotation(). */
  constructor(
    private readonly membersChanged: (delta: number) => void,
    slotCount: number,
    private readonly slotTicks: number,
    private readonly serve: (members: readonly T[]) => void,
  ) {
    this.slots = Array.from({ length: slotCount }, () => []);
    this.tasks = Array.from({ length: slotCount }, (_, i) => new SlotTask(this as Rotation<unknown>, i));
  }

  get size(): number {
    let n = 0;
    for (const slot of this.slots) n += slot.length;
    return n;
  }

  /** How many members each slot holds. */
  slotSizes(): number[] {
    return this.slots.map((slot) => slot.length);
  }

  /** Adds a member to the emptiest slot (the first of them, from the slot served next). */
  join(value: T): Membership {
    const member = new Member(this, value);
    let best = 0;
    for (let i = 1; i < this.slots.length; i++) if (this.slots[i].length < this.slots[best].length) best = i;
    member.slot = best;
    member.index = this.slots[best].length;
    this.slots[best].push(member);
    this.membersChanged(1);
    return member;
  }

  /** @internal */
  remove(member: Member<T>): void {
    if (member.slot < 0) return;
    const slot = this.slots[member.slot];
    const last = slot.pop()!;
    if (last !== member) {
      slot[member.index] = last;
      last.index = member.index;
    }
    member.slot = member.index = -1;
    this.membersChanged(-1);
  }

  /** @internal The slot task due at `tick`, if a slot of this rotation is served then. */
  taskAt(tick: number): SlotTask | null {
    if (tick % this.slotTicks !== 0) return null;
    const slot = Math.floor(tick / this.slotTicks) % this.slots.length;
    return this.slots[slot].length > 0 ? this.tasks[slot] : null;
  }

  /** @internal Every non-empty slot, once (catch-up after a long stall). */
  allTasks(): SlotTask[] {
    return this.tasks.filter((task) => this.slots[task.slot].length > 0);
  }

  /** @internal */
  serveSlot(slot: number): void {
    const members = this.slots[slot];
    if (members.length === 0) return;
    this.serve(members.map((m) => m.value));
  }

  /** Drops every member (their leave() does nothing after). */
  clear(): void {
    const n = this.size;
    for (const slot of this.slots) {
      for (const member of slot) member.slot = member.index = -1;
      slot.length = 0;
    }
    if (n > 0) this.membersChanged(-n);
  }
}
