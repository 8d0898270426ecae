/** Conversation sessions: the pure state (items, responses, settings) and the session that joins it to the runtime. */
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
export type { SilentSegment } from './idle-timeout';
export { ConversationSession, type ConversationSessionOptions } from './conversation-session';
export type * from './conversation-connection';
export * from './conversation.types';
