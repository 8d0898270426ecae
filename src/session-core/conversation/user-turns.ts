/**
 * The user's turns heard on the input audio, by the engine's item id. A turn becomes a user item of
 * the conversation when committed (its speech stopped, or a manual commit) and is forgotten once its
 * transcript is in.
 */
import { copy, emit, type ConversationEffect } from './conversation-effects';
import type { ConversationIds } from './conversation-ids';
import type { ConversationItems, ConversationItemsSource } from './conversation-items';
import type { ConversationItem } from './conversation.types';

export interface UserTurn {
  itemId: string;
  committed: boolean;
}

export class UserTurns {
  private readonly turns = new Map<string, UserTurn>();
  /** The turn heard last and not committed yet. */
  private openTurn: string | null = null;

  constructor(
    private readonly items: ConversationItems,
    private readonly ids: ConversationIds,
  ) {}

  speechStopped(engineItemId: string, audioEndMs: number): ConversationEffect[] {
    const turn = this.turnOf(engineItemId);
    return [emit({ type: 'input_speech_stopped', itemId: turn.itemId, audioEndMs }), ...this.commit(turn)];
  }

  /** A manual input_audio_buffer.commit: the turn heard last, if the engine named one yet. */
  committed(clientEventId?: string): ConversationEffect[] {
    const turn = this.openTurn === null ? undefined : this.turns.get(this.openTurn);
    return turn === undefined ? [] : this.commit(turn, clientEventId);
  }

  cleared(clientEventId?: string): ConversationEffect[] {
    if (this.openTurn !== null && !this.turns.get(this.openTurn)?.committed) this.turns.delete(this.openTurn);
    this.openTurn = null;
    return [emit({ type: 'input_cleared', clientEventId })];
  }

  /** The turn's final transcript: the turn is committed if it was not yet, then forgotten. */
  transcribed(engineItemId: string, turn: UserTurn, transcript: string, seconds: number): ConversationEffect[] {
    const out = turn.committed ? [] : this.commit(turn);
    this.turns.delete(engineItemId);
    if (this.openTurn === engineItemId) this.openTurn = null;
    const item = this.items.get(turn.itemId);
    if (item?.type === 'message' && item.content[0]?.type === 'input_audio') item.content[0].transcript = transcript;
    out.push(emit({ type: 'input_transcript_done', itemId: turn.itemId, transcript, seconds }));
    if (item !== undefined) {
      out.push(emit({ type: 'item_done', item, previousItemId: this.items.previousOf(item.id) }));
    }
    return out;
  }

  /** Whether a committed user turn in `context` still waits for its transcript. */
  transcribing(context: ConversationItemsSource): boolean {
    const pending = new Set([...this.turns.values()].filter((turn) => turn.committed).map((turn) => turn.itemId));
    return pending.size > 0 && context.items().some((item) => pending.has(item.id));
  }

  turnOf(engineItemId: string): UserTurn {
    let turn = this.turns.get(engineItemId);
    if (turn === undefined) {
      turn = { itemId: this.ids.item(), committed: false };
      this.turns.set(engineItemId, turn);
      this.openTurn = engineItemId;
    }
    return turn;
  }

  /** The user's audio becomes an item of the conversation. */
  private commit(turn: UserTurn, clientEventId?: string): ConversationEffect[] {
    if (turn.committed) return [];
    turn.committed = true;
    const item: ConversationItem = {
      id: turn.itemId,
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_audio', transcript: null }],
    };
    const previousItemId = this.items.insert(item) ?? null;
    return [
      emit({ type: 'input_committed', itemId: item.id, previousItemId, clientEventId }),
      emit({ type: 'item_added', item: copy(item), previousItemId }),
    ];
  }
}
