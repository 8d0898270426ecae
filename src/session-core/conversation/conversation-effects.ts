/**
 * What the conversation returns for the dialect to carry out: events to render and requests to the
 * engine, and the error events it answers a refused client request with.
 */
import type { ResponseRequest, TokenUsage } from '../engine/engine.port';
import type { SessionError } from '../model/session.types';
import type { ConversationEvent, ConversationItem } from './conversation.types';

export type ConversationEffect =
  | { kind: 'emit'; event: ConversationEvent }
  | { kind: 'respond'; request: ResponseRequest }
  | { kind: 'cancel'; responseId: string }
  /** A response the engine was asked for ended: its text work is billed (runtime.meterText). */
  | { kind: 'bill'; tokens: TokenUsage };

export function emit(event: ConversationEvent): ConversationEffect {
  return { kind: 'emit', event };
}

export function refuse(code: string, message: string, param: string | null, clientEventId?: string) {
  const error: SessionError = { code, message, param, origin: 'client', clientEventId };
  return [emit({ type: 'error', error })];
}

/** Events carry copies: an item keeps changing after an event about it was made. */
export function copy<T extends ConversationItem>(item: T): T {
  return item.type === 'message' ? { ...item, content: item.content.map((part) => ({ ...part })) } : { ...item };
}
