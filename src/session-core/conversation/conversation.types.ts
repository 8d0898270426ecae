/**
 * The plain data of a conversation session (OpenAI Realtime `type: "realtime"`): its items, its
 * responses, the settings its responses are made with, and the neutral events the model reports.
 * Shapes follow OpenAI's GA items closely, since that is the one protocol that carries them, but
 * nothing here knows a wire format: the Realtime dialect names and serialises them.
 */
import type { ConversationTool, TokenUsage, ToolChoice } from '../engine/engine.port';
import type { SessionError } from '../model/session.types';

export type ItemStatus = 'completed' | 'incomplete' | 'in_progress';

export type ContentPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_audio'; transcript: string | null }
  | { type: 'output_text'; text: string }
  | { type: 'output_audio'; transcript: string };

export type ConversationItem =
  | {
      id: string;
      type: 'message';
      role: 'user' | 'assistant' | 'system';
      status: ItemStatus;
      content: ContentPart[];
    }
  | { id: string; type: 'function_call'; status: ItemStatus; callId: string; name: string; arguments: string }
  | { id: string; type: 'function_call_output'; status: ItemStatus; callId: string; output: string };

/** What every response is made with unless its response.create says otherwise. */
export interface ConversationSettings {
  instructions: string;
  tools: ConversationTool[];
  toolChoice: ToolChoice;
  /** false: text answers only. */
  audio: boolean;
  /** null: the engine's own limit. */
  maxOutputTokens: number | null;
  /** Answer each committed user turn without a response.create (turn detection's create_response). */
  createResponse: boolean;
  /** The user speaking over a response cuts it (turn detection's interrupt_response). */
  interruptResponse: boolean;
}

export const DEFAULT_CONVERSATION_SETTINGS: ConversationSettings = {
  instructions: '',
  tools: [],
  toolChoice: 'auto',
  audio: true,
  maxOutputTokens: null,
  createResponse: true,
  interruptResponse: true,
};

/** One response.create's own choices, each falling back to the session's. */
export interface ResponseOptions {
  instructions?: string;
  tools?: ConversationTool[];
  toolChoice?: ToolChoice;
  audio?: boolean;
  maxOutputTokens?: number | null;
  /** `none`: an out-of-band answer, its items not added to the conversation. */
  conversation: 'auto' | 'none';
  /** The context instead of the conversation (items, or ids of conversation items). */
  input?: (ConversationItem | { reference: string })[];
  metadata?: Record<string, string> | null;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'cancelled' | 'failed' | 'incomplete';

export interface ResponseView {
  id: string;
  status: ResponseStatus;
  /** Why it ended, for anything but completed (OpenAI's status_details). */
  reason: string | null;
  output: ConversationItem[];
  audio: boolean;
  conversation: 'auto' | 'none';
  metadata: Record<string, string> | null;
  usage: TokenUsage | null;
}

/** Where an event of a response's output belongs. */
export interface OutputRef {
  responseId: string;
  itemId: string;
  outputIndex: number;
  contentIndex: number;
}

export type ConversationEvent =
  | { type: 'item_added'; item: ConversationItem; previousItemId: string | null; clientEventId?: string }
  | { type: 'item_done'; item: ConversationItem; previousItemId: string | null }
  | { type: 'item_retrieved'; item: ConversationItem; clientEventId?: string }
  | { type: 'item_deleted'; itemId: string; clientEventId?: string }
  | { type: 'item_truncated'; itemId: string; contentIndex: number; audioEndMs: number; clientEventId?: string }
  | { type: 'input_speech_started'; itemId: string; audioStartMs: number }
  | { type: 'input_speech_stopped'; itemId: string; audioEndMs: number }
  | { type: 'input_committed'; itemId: string; previousItemId: string | null; clientEventId?: string }
  | { type: 'input_cleared'; clientEventId?: string }
  /** No speech for the idle timeout: the silent stretch of input audio, committed as `itemId`. */
  | { type: 'input_timeout'; itemId: string; audioStartMs: number; audioEndMs: number }
  | { type: 'input_transcript_delta'; itemId: string; delta: string }
  | { type: 'input_transcript_done'; itemId: string; transcript: string; seconds: number }
  | { type: 'response_created'; response: ResponseView; clientEventId?: string }
  | { type: 'response_done'; response: ResponseView }
  | { type: 'output_item_added'; responseId: string; outputIndex: number; item: ConversationItem }
  | { type: 'output_item_done'; responseId: string; outputIndex: number; item: ConversationItem }
  | { type: 'content_part_added'; ref: OutputRef; part: ContentPart }
  | { type: 'content_part_done'; ref: OutputRef; part: ContentPart }
  /** `audio`: the transcript of the response's audio, else its text. */
  | { type: 'output_text_delta'; ref: OutputRef; delta: string; audio: boolean }
  | { type: 'output_text_done'; ref: OutputRef; text: string; audio: boolean }
  | { type: 'output_audio_delta'; ref: OutputRef; pcm: Buffer }
  | { type: 'output_audio_done'; ref: OutputRef }
  | { type: 'function_call_arguments_delta'; ref: OutputRef; callId: string; delta: string }
  | { type: 'function_call_arguments_done'; ref: OutputRef; callId: string; name: string; arguments: string }
  | { type: 'error'; error: SessionError };
