/** The client's requests on the conversation's items: create, retrieve, delete, truncate. */
import { itemChars } from './context-budget';
import { emit, refuse, type ConversationEffect } from './conversation-effects';
import type { ConversationIds } from './conversation-ids';
import type { ConversationItems } from './conversation-items';
import type { ConversationItem } from './conversation.types';

export class ItemRequests {
  constructor(
    private readonly items: ConversationItems,
    private readonly ids: ConversationIds,
  ) {}

  createItem(item: ConversationItem, previousItemId: string | null | undefined, clientEventId?: string) {
    if (item.id === '') item.id = this.ids.item();
    if (this.items.has(item.id)) {
      return refuse('item_already_exists', `Item with id ${item.id} already exists.`, 'item.id', clientEventId);
    }
    const chars = itemChars(item);
    const held = this.items.retained();
    // An empty item (the idle timeout's silent turn) always goes in: answers grow in place, so what is
    // held may be past the bound until the next insert evicts.
    if (chars > 0 && held + chars > this.items.retainedChars) {
      return refuse(
        'conversation_too_large',
        `The conversation holds ${held} characters and this item ${chars}; a session keeps at most ${this.items.retainedChars}. Delete items (conversation.item.delete) before adding more.`,
        'item',
        clientEventId,
      );
    }
    const previous = this.items.insert(item, previousItemId);
    if (previous === undefined) {
      return refuse(
        'item_not_found',
        `Previous item with id ${previousItemId} does not exist.`,
        'previous_item_id',
        clientEventId,
      );
    }
    return [
      emit({ type: 'item_added', item, previousItemId: previous, clientEventId }),
      emit({ type: 'item_done', item, previousItemId: previous }),
    ];
  }

  retrieveItem(itemId: string, clientEventId?: string): ConversationEffect[] {
    const item = this.items.get(itemId);
    if (item === undefined) return this.notFound(itemId, clientEventId);
    return [emit({ type: 'item_retrieved', item, clientEventId })];
  }

  deleteItem(itemId: string, clientEventId?: string): ConversationEffect[] {
    if (!this.items.delete(itemId)) return this.notFound(itemId, clientEventId);
    return [emit({ type: 'item_deleted', itemId, clientEventId })];
  }

  truncateItem(itemId: string, contentIndex: number, audioEndMs: number, clientEventId?: string) {
    if (!this.items.has(itemId)) return this.notFound(itemId, clientEventId);
    if (!this.items.truncate(itemId, contentIndex, audioEndMs)) {
      return refuse(
        'invalid_value',
        `Item ${itemId} has no assistant audio at content_index ${contentIndex}.`,
        'content_index',
        clientEventId,
      );
    }
    return [emit({ type: 'item_truncated', itemId, contentIndex, audioEndMs, clientEventId })];
  }

  private notFound(itemId: string, clientEventId?: string): ConversationEffect[] {
    return refuse('item_not_found', `Item with id ${itemId} does not exist.`, 'item_id', clientEventId);
  }
}
