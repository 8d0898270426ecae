/**
 * The Realtime view of the input items: ids, commit order and completion. The engine names its
 * utterances when it hears them; Realtime names an item when its audio is committed (by VAD or by
 * `input_audio_buffer.commit`) and chains items by `previous_item_id`. This keeps the two apart:
 * a manual commit over audio the engine has not named yet (silence, say) reserves the id that the
 * engine's next utterance then takes. Every committed item ends with `completed` or, if the
 * session ends first, `failed`.
 */
export interface Committed {
  readonly itemId: string;
  readonly previousItemId: string | null;
}

interface Item {
  readonly id: string;
  committed: boolean;
}

export class RealtimeItems {
  private readonly items = new Map<string, Item>();
  /** The engine item heard last and not finished: what a manual commit commits. */
  private open: string | null = null;
  /** An id a manual commit reserved for the engine's next new item. */
  private reserved: Item | null = null;
  private lastCommitted: string | null = null;
  private count = 0;

  constructor(private readonly prefix: string) {}

  /** The Realtime id of an engine item; the first mention of a new item makes it the open one. */
  idOf(engineItemId: string): string {
    return this.item(engineItemId).id;
  }

  /** VAD found the end of speech: the item is committed now (null when it already was). */
  commitEngineItem(engineItemId: string): Committed | null {
    const item = this.item(engineItemId);
    if (this.open === engineItemId) this.open = null;
    return item.committed ? null : this.commit(item);
  }

  /** A manual commit: the open item, or an id reserved for the utterance the engine makes of it. */
  commitOpen(): Committed {
    const open = this.open === null ? undefined : this.items.get(this.open);
    this.open = null;
    if (open !== undefined && !open.committed) return this.commit(open);
    this.reserved = { id: this.newId(), committed: false };
    return this.commit(this.reserved);
  }

  /** The item's final transcript: returns its commit when it had none yet (an end the client did not ask for). */
  complete(engineItemId: string): { readonly itemId: string; readonly committed: Committed | null } {
    const item = this.item(engineItemId);
    if (this.open === engineItemId) this.open = null;
    const committed = item.committed ? null : this.commit(item);
    this.items.delete(engineItemId);
    return { itemId: item.id, committed };
  }

  /** The buffer was cleared: the open utterance is dropped by the engine and never completes. */
  clear(): void {
    if (this.open !== null) this.items.delete(this.open);
    this.open = null;
  }

  /** Committed items that never got their transcript (the session is ending). */
  unfinished(): string[] {
    const ids = [...this.items.values()].filter((item) => item.committed).map((item) => item.id);
    if (this.reserved !== null) ids.push(this.reserved.id);
    this.items.clear();
    this.reserved = null;
    return ids;
  }

  private item(engineItemId: string): Item {
    let item = this.items.get(engineItemId);
    if (item === undefined) {
      item = this.reserved ?? { id: this.newId(), committed: false };
      this.reserved = null;
      this.items.set(engineItemId, item);
      if (!item.committed) this.open = engineItemId;
    }
    return item;
  }

  private commit(item: Item): Committed {
    item.committed = true;
    const committed = { itemId: item.id, previousItemId: this.lastCommitted };
    this.lastCommitted = item.id;
    return committed;
  }

  private newId(): string {
    return `${this.prefix}_${++this.count}`;
  }
}
