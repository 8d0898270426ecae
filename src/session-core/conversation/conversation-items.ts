/**
 * The conversation's items in order, and the chat context they make. Insertion follows OpenAI:
 * after `previous_item_id` when given (`null` or "root": first), else at the end. What a truncated
 * answer keeps is what the user heard: the words whose audio started before the cut.
 */
import type { ConversationMessage } from '../engine/engine.port';
import { DEFAULT_CONVERSATION_LIMITS, itemChars } from './context-budget';
import type { ConversationItem } from './conversation.types';

/** Items beyond this are dropped from the front: a long session keeps bounded memory and context. */
export const MAX_CONVERSATION_ITEMS = 512;

/** A word of an answer's transcript and when its audio starts, in ms within the answer's audio. */
interface TimedWord {
  text: string;
  startMs: number;
}

/** The items a response is made from, read when the request is built. */
export interface ConversationItemsSource {
  items(): readonly ConversationItem[];
}

export class ConversationItems {
  private readonly items: ConversationItem[] = [];
  private readonly words = new Map<string, TimedWord[]>();

  constructor(
    /** Characters the items may hold together: past it the oldest go (a client's own item is refused first). */
    readonly retainedChars: number = DEFAULT_CONVERSATION_LIMITS.retainedChars,
  ) {}

  get(id: string): ConversationItem | undefined {
    return this.items.find((item) => item.id === id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Inserts `item`; returns its predecessor's id, or undefined when `previousItemId` names no item. */
  insert(item: ConversationItem, previousItemId?: string | null): string | null | undefined {
    let at = this.items.length;
    if (previousItemId === null || previousItemId === 'root') at = 0;
    else if (previousItemId !== undefined) {
      const index = this.items.findIndex((existing) => existing.id === previousItemId);
      if (index < 0) return undefined;
      at = index + 1;
    }
    this.items.splice(at, 0, item);
    if (this.items.length > MAX_CONVERSATION_ITEMS) {
      for (const dropped of this.items.splice(0, this.items.length - MAX_CONVERSATION_ITEMS)) {
        this.words.delete(dropped.id);
      }
    }
    this.evictOver(item);
    return this.previousOf(item.id);
  }

  /** Characters the items hold now (transcripts and answers grow in place: counted when asked). */
  retained(): number {
    let chars = 0;
    for (const item of this.items) chars += itemChars(item);
    return chars;
  }

  /** The oldest items go until the rest fit the retained budget; `kept` stays. */
  private evictOver(kept: ConversationItem): void {
    let over = this.retained() - this.retainedChars;
    for (let i = 0; over > 0 && i < this.items.length;) {
      const item = this.items[i];
      if (item === kept) {
        i++;
        continue;
      }
      over -= itemChars(item);
      this.items.splice(i, 1);
      this.words.delete(item.id);
    }
  }

  previousOf(id: string): string | null {
    const index = this.items.findIndex((item) => item.id === id);
    return index > 0 ? this.items[index - 1].id : null;
  }

  delete(id: string): boolean {
    const index = this.items.findIndex((item) => item.id === id);
    if (index < 0) return false;
    this.items.splice(index, 1);
    this.words.delete(id);
    return true;
  }

  /** A word of an answer was sent, starting `startMs` into the answer's audio. */
  recordWord(itemId: string, text: string, startMs: number): void {
    const list = this.words.get(itemId) ?? [];
    list.push({ text, startMs });
    this.words.set(itemId, list);
  }

  /**
   * Keeps what the user heard of an answer: its transcript up to `audioEndMs`. Returns false when
   * the item has no audio content at `contentIndex`.
   */
  truncate(id: string, contentIndex: number, audioEndMs: number): boolean {
    const item = this.get(id);
    if (item?.type !== 'message' || item.role !== 'assistant') return false;
    const part = item.content[contentIndex];
    if (part?.type !== 'output_audio') return false;
    const heard = (this.words.get(id) ?? []).filter((word) => word.startMs < audioEndMs);
    part.transcript = heard.map((word) => word.text).join(' ');
    this.words.set(id, heard);
    item.status = 'incomplete';
    return true;
  }

  all(): readonly ConversationItem[] {
    return this.items;
  }

  /** The whole conversation as a response's context, read when the request is built. */
  messagesSource(): ConversationItemsSource {
    return { items: () => this.items };
  }

  /** The conversation as chat context (see messagesOf). */
  messages(): ConversationMessage[] {
    return messagesOf(this.items);
  }
}

/**
 * Items → chat messages: text and transcripts as they are, consecutive function calls as one
 * assistant message with tool calls, their outputs as tool messages; empty messages are left out.
 */
export function messagesOf(items: readonly ConversationItem[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const item of items) {
    switch (item.type) {
      case 'message': {
        const text = item.content
          .map((part) => ('text' in part ? part.text : (part.transcript ?? '')))
          .join(' ')
          .trim();
        if (text !== '') out.push({ role: item.role, content: text });
        break;
      }
      case 'function_call': {
        const call = { callId: item.callId, name: item.name, arguments: item.arguments };
        const last = out[out.length - 1];
        if (last !== undefined && 'toolCalls' in last) last.toolCalls.push(call);
        else out.push({ role: 'assistant', content: '', toolCalls: [call] });
        break;
      }
      case 'function_call_output':
        out.push({ role: 'tool', callId: item.callId, content: item.output });
        break;
    }
  }
  return out;
}
