/** Conversation sessions' pure state: items, responses, settings (used by the Realtime dialect). */
export { ConversationModel } from './conversation.model';
export type { ConversationEffect } from './conversation-effects';
export { MAX_CONVERSATION_ITEMS } from './conversation-items';
export {
  DEFAULT_CONVERSATION_LIMITS,
  estimateTokens,
  fitContext,
  type ConversationLimits,
  type FittedContext,
} from './context-budget';
export { IdleTimeout, idleTimedOut, type SilentSegment } from './idle-timeout';
export * from './conversation.types';
