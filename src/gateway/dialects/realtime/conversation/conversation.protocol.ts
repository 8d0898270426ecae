/**
 * The inbound half of a Realtime conversation session: one client frame → a session command (input
 * audio, turn detection) or a conversation request (items, responses), or a refusal. Audio appends
 * take the same fast path as the transcription half.
 */
import type {
  ConversationItem,
  ConversationRequest as CoreConversationRequest,
  ResponseOptions,
  SessionCommand,
} from '../../../../session-core';
import {
  isClientEvent,
  isRecord,
  parseBase64Append,
  reject,
  type ClientFrame,
  type Fields,
} from '../../../connection/client-frames';
import { readRealtimeEvent } from '../realtime.protocol';
import {
  realtimeFormatName,
  REALTIME_FORMATS_SERVED,
  type AudioFormatName,
} from '../../../../platform/audio/audio-format';
import {
  integer,
  known,
  MAX_TEXT,
  maxOutputTokens,
  object,
  outputModalities,
  Refusal,
  string,
  toolChoice,
  tools,
} from './conversation.fields';
import { parseConversationUpdate, type ConversationView } from './conversation.session-update';

/** The session core's conversation requests, with this dialect's view of the settings. */
export type ConversationRequest = CoreConversationRequest<ConversationView>;

export interface ConversationParseContext {
  readonly maxMessageBytes: number;
  readonly model: string;
  readonly aliases: ReadonlyMap<string, string>;
}

export function parseConversationFrame(
  frame: ClientFrame,
  isBinary: boolean,
  context: ConversationParseContext,
): SessionCommand | ConversationRequest {
  const read = readRealtimeEvent(frame, isBinary, context.maxMessageBytes);
  if (!isClientEvent(read)) return read;
  const { type, fields, clientEventId } = read;
  const ids = clientEventId === undefined ? {} : { clientEventId };
  try {
    switch (type) {
      case 'input_audio_buffer.append':
        return parseBase64Append(fields.audio, clientEventId);
      case 'input_audio_buffer.commit':
        return { type: 'commit', ...ids };
      case 'input_audio_buffer.clear':
        return { type: 'clear', ...ids };
      case 'session.update':
        return {
          type: 'session_update',
          update: parseConversationUpdate(fields.session, context.model, context.aliases),
          ...ids,
        };
      case 'conversation.item.create': {
        known(fields, new Set(['type', 'event_id', 'previous_item_id', 'item']), '');
        const previous = fields.previous_item_id;
        if (previous !== undefined && previous !== null && typeof previous !== 'string') {
          throw new Refusal('invalid_type', 'previous_item_id must be a string', 'previous_item_id');
        }
        return { type: 'item_create', item: item(fields.item, 'item'), previousItemId: previous, ...ids };
      }
      case 'conversation.item.retrieve':
        return { type: 'item_retrieve', itemId: string(fields.item_id, 'item_id', true)!, ...ids };
      case 'conversation.item.delete':
        return { type: 'item_delete', itemId: string(fields.item_id, 'item_id', true)!, ...ids };
      case 'conversation.item.truncate':
        return {
          type: 'item_truncate',
          itemId: string(fields.item_id, 'item_id', true)!,
          contentIndex: required(integer(fields.content_index, 'content_index', 0, 1000), 'content_index'),
          audioEndMs: required(integer(fields.audio_end_ms, 'audio_end_ms', 0, 24 * 3600_000), 'audio_end_ms'),
          ...ids,
        };
      case 'response.create':
        return { type: 'response_create', ...responseOptions(fields.response), ...ids };
      case 'response.cancel': {
        const responseId = string(fields.response_id, 'response_id');
        return responseId === undefined
          ? { type: 'response_cancel', ...ids }
          : { type: 'response_cancel', responseId, ...ids };
      }
      case 'output_audio_buffer.clear':
        return reject(
          'unsupported_event',
          'output_audio_buffer.clear is a WebRTC event; over WebSocket, send response.cancel',
          'type',
          clientEventId,
        );
      case 'transcription_session.update':
        return reject(
          'invalid_value',
          "Invalid value: 'transcription_session.update'. This is a conversation session: send session.update.",
          'type',
          clientEventId,
        );
      default:
        return reject(
          'invalid_value',
          `Invalid value: ${JSON.stringify(type)}. Unknown event type.`,
          'type',
          clientEventId,
        );
    }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return reject(error.code, error.message, error.param, clientEventId);
  }
}

function required<T>(value: T | undefined, param: string): T {
  if (value === undefined)
    throw new Refusal('missing_required_parameter', `Missing required parameter: '${param}'.`, param);
  return value;
}

const ITEM_FIELDS = new Set([
  'id',
  'type',
  'object',
  'status',
  'role',
  'content',
  'call_id',
  'name',
  'arguments',
  'output',
]);

/** A client's item: messages with text, function calls and their outputs. */
function item(raw: unknown, param: string): ConversationItem {
  const fields = object(raw, param, true);
  known(fields, ITEM_FIELDS, param);
  const id = string(fields.id, `${param}.id`, false, 64) ?? '';
  switch (fields.type) {
    case 'message':
      return {
        id,
        type: 'message',
        role: role(fields.role, `${param}.role`),
        status: 'completed',
        content: content(fields, param),
      };
    case 'function_call':
      return {
        id,
        type: 'function_call',
        status: 'completed',
        callId: string(fields.call_id, `${param}.call_id`, true, 256)!,
        name: string(fields.name, `${param}.name`, true, 64)!,
        arguments: string(fields.arguments, `${param}.arguments`, false, MAX_TEXT) ?? '',
      };
    case 'function_call_output':
      return {
        id,
        type: 'function_call_output',
        status: 'completed',
        callId: string(fields.call_id, `${param}.call_id`, true, 256)!,
        output: string(fields.output, `${param}.output`, true, MAX_TEXT)!,
      };
    default:
      throw new Refusal(
        'invalid_value',
        `${param}.type must be "message", "function_call" or "function_call_output" (MCP items are not served)`,
        `${param}.type`,
      );
  }
}

function role(value: unknown, param: string): 'user' | 'assistant' | 'system' {
  if (value === 'user' || value === 'assistant' || value === 'system') return value;
  throw new Refusal('invalid_value', `${param} must be "user", "assistant" or "system"`, param);
}

function content(fields: Fields, param: string): Extract<ConversationItem, { type: 'message' }>['content'] {
  const list = fields.content;
  if (!Array.isArray(list) || list.length === 0 || list.length > 32) {
    throw new Refusal('invalid_value', `${param}.content must be an array of 1 to 32 parts`, `${param}.content`);
  }
  return list.map((raw, i) => {
    const at = `${param}.content[${i}]`;
    const part = object(raw, at, true);
    switch (part.type) {
      case 'input_text':
      case 'text':
        if (fields.role === 'assistant') break;
        return { type: 'input_text' as const, text: string(part.text, `${at}.text`, true, MAX_TEXT)! };
      case 'output_text':
        if (fields.role !== 'assistant') break;
        return { type: 'output_text' as const, text: string(part.text, `${at}.text`, true, MAX_TEXT)! };
      case 'output_audio':
        if (fields.role !== 'assistant' || part.audio !== undefined) break;
        return {
          type: 'output_audio' as const,
          transcript: string(part.transcript, `${at}.transcript`, true, MAX_TEXT)!,
        };
      case 'input_audio':
        if (fields.role !== 'user') break;
        throw new Refusal(
          'unsupported_parameter',
          `${at}: audio items are not served; stream audio with input_audio_buffer.append, or send its text as input_text`,
          at,
        );
    }
    throw new Refusal(
      'invalid_value',
      `${at}.type: user and system messages hold input_text; assistant messages output_text or output_audio with a transcript (images are not served)`,
      `${at}.type`,
    );
  });
}

/** Entries of an out-of-band response's `input` (OpenAI's limit). */
const MAX_RESPONSE_INPUT = 512;

const RESPONSE_FIELDS = new Set([
  'instructions',
  'tools',
  'tool_choice',
  'output_modalities',
  'max_output_tokens',
  'conversation',
  'input',
  'metadata',
  'audio',
  'prompt',
]);

function responseOptions(raw: unknown): { options: ResponseOptions; outputFormat?: AudioFormatName } {
  const fields = object(raw, 'response');
  known(fields, RESPONSE_FIELDS, 'response');
  const options: ResponseOptions = { conversation: 'auto' };
  let outputFormat: AudioFormatName | undefined;
  if (fields.conversation !== undefined) {
    if (fields.conversation !== 'auto' && fields.conversation !== 'none') {
      throw new Refusal('invalid_value', 'response.conversation must be "auto" or "none"', 'response.conversation');
    }
    options.conversation = fields.conversation;
  }
  if (fields.instructions !== undefined)
    options.instructions = string(fields.instructions, 'response.instructions', true, MAX_TEXT);
  if (fields.tools !== undefined) options.tools = tools(fields.tools, 'response.tools');
  if (fields.tool_choice !== undefined) options.toolChoice = toolChoice(fields.tool_choice, 'response.tool_choice');
  if (fields.output_modalities !== undefined) {
    options.audio = outputModalities(fields.output_modalities, 'response.output_modalities');
  }
  if (fields.max_output_tokens !== undefined) {
    options.maxOutputTokens = maxOutputTokens(fields.max_output_tokens, 'response.max_output_tokens');
  }
  if (fields.prompt !== undefined && fields.prompt !== null) {
    throw new Refusal(
      'unsupported_parameter',
      'response.prompt: stored prompt templates are not served; send response.instructions',
      'response.prompt',
    );
  }
  if (fields.audio !== undefined) {
    const output = object(object(fields.audio, 'response.audio').output, 'response.audio.output');
    known(output, new Set(['voice', 'format']), 'response.audio.output');
    if (output.voice !== undefined && output.voice !== 'aria') {
      throw new Refusal(
        'invalid_value',
        'response.audio.output.voice: the one voice is "aria"',
        'response.audio.output.voice',
      );
    }
    if (output.format !== undefined) {
      outputFormat = realtimeFormatName(output.format) ?? undefined;
      if (outputFormat === undefined) {
        throw new Refusal(
          'unsupported_audio_format',
          `response.audio.output.format: ${REALTIME_FORMATS_SERVED} is served`,
          'response.audio.output.format',
        );
      }
    }
  }
  if (fields.metadata !== undefined && fields.metadata !== null) {
    const metadata = object(fields.metadata, 'response.metadata');
    const entries = Object.entries(metadata);
    if (entries.length > 16 || entries.some(([k, v]) => typeof v !== 'string' || k.length > 64 || v.length > 512)) {
      throw new Refusal(
        'invalid_value',
        'response.metadata holds at most 16 string values (keys up to 64, values up to 512 characters)',
        'response.metadata',
      );
    }
    options.metadata = metadata as Record<string, string>;
  }
  if (fields.input !== undefined) {
    if (!Array.isArray(fields.input)) {
      throw new Refusal('invalid_type', 'response.input must be an array of items', 'response.input');
    }
    if (fields.input.length > MAX_RESPONSE_INPUT) {
      throw new Refusal(
        'array_above_max_length',
        `response.input holds ${fields.input.length} entries; at most ${MAX_RESPONSE_INPUT}`,
        'response.input',
      );
    }
    options.input = fields.input.map((entry, i) => {
      const at = `response.input[${i}]`;
      if (isRecord(entry) && entry.type === 'item_reference')
        return { reference: string(entry.id, `${at}.id`, true, 64)! };
      const parsed = item(entry, at);
      if (parsed.id === '') parsed.id = `input_${i}`;
      return parsed;
    });
  }
  return outputFormat === undefined ? { options } : { options, outputFormat };
}
