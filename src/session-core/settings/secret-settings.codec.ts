/**
 * What a conversation's client secret stores of its settings, normalized once when the secret is
 * issued (the rules above, and the engine's abilities), and what the session starts with when it is
 * redeemed: read back, never parsed again. The engine's turn detection and the turn flags the
 * runtime needs are the session row's (its audio configuration); this record holds the rest.
 */
import type { ConversationSettings } from '../conversation/conversation.types';
import type { ConversationTurns } from './conversation.rules';
import { isRecord } from './setting-refusal';

/** The conversation settings as a secret carries them: only what its request named. */
export interface SecretConversation {
  readonly settings: Partial<Omit<ConversationSettings, 'createResponse' | 'interruptResponse'>>;
  /** The turns the request asked for; absent: the session's defaults. */
  readonly turns?: ConversationTurns;
  /** Shown back, no effect here: OpenAI's tracing, the transcription model name the client gave. */
  readonly tracing?: unknown;
  readonly transcriptionModel?: string | null;
}

const VERSION = 1;

/** null when the request named nothing: the session starts with the defaults. */
export function encodeSecretConversation(conversation: SecretConversation): Record<string, unknown> | null {
  const named = Object.keys(conversation.settings).length > 0 || Object.keys(conversation).length > 1;
  return named ? { version: VERSION, ...conversation } : null;
}

/**
 * The stored record back (it was written by encodeSecretConversation); null for none, or for a record
 * of another version (a secret issued before an upgrade lives minutes: it starts with the defaults).
 */
export function decodeSecretConversation(stored: unknown): SecretConversation | null {
  if (!isRecord(stored) || stored.version !== VERSION || !isRecord(stored.settings)) return null;
  const { version: _version, ...conversation } = stored;
  return conversation as unknown as SecretConversation;
}
