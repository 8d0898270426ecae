/**
 * What a client sends on the conversation channel (conversation.asyncapi.ts): each event's payload
 * and the examples the conformance test sends through parseConversationFrame.
 */
import type { MessageDoc } from '../../../../platform/openapi/socket-dialect-doc';
import {
  array,
  constant,
  int,
  nullable,
  object,
  oneOfValues,
  ref,
  str,
  typed,
} from '../../../../platform/openapi/asyncapi-schemas';
import { VOICECHAT } from '../../../../engines';
import { VOICE } from '../../../../session-core';
import { clientId } from '../realtime.asyncapi';
import {
  itemId,
  maxTokens,
  metadata,
  modalities,
  oneOf,
  pcmIn,
  promptRefused,
  toolChoice,
} from './conversation.schemas.asyncapi';

export const CONVERSATION_CLIENT_MESSAGES: Record<string, MessageDoc> = {
  'session.update': {
    summary: 'Instructions, tools, output modalities, turn detection, …; answered by `session.updated`.',
    payload: typed('session.update', { session: ref('RealtimeConversationSessionUpdate') }, clientId),
    examples: [
      {
        type: 'session.update',
        event_id: 'u1',
        session: {
          type: 'realtime',
          model: VOICECHAT,
          instructions: 'You are Aria, a concise assistant.',
          output_modalities: ['audio'],
          tools: [
            {
              type: 'function',
              name: 'get_time',
              description: 'The current time',
              parameters: { type: 'object', properties: {} },
            },
          ],
          tool_choice: 'auto',
          tracing: 'auto',
          audio: {
            input: {
              format: { type: 'audio/pcm', rate: 24000 },
              transcription: { model: 'gpt-4o-mini-transcribe' },
              turn_detection: { type: 'semantic_vad', eagerness: 'auto', create_response: true },
            },
            output: { format: { type: 'audio/pcm', rate: 24000 }, voice: VOICE },
          },
        },
      },
    ],
  },
  'input_audio_buffer.append': {
    summary: 'Input audio: base64 pcm16 mono 24 kHz, at most 1 MiB per message. No acknowledgement.',
    payload: typed('input_audio_buffer.append', { audio: str() }, clientId),
    examples: [{ type: 'input_audio_buffer.append', audio: Buffer.alloc(3840).toString('base64') }],
  },
  'input_audio_buffer.commit': {
    summary: 'Ends the user turn now; an empty buffer is `input_audio_buffer_commit_empty`.',
    payload: typed('input_audio_buffer.commit', {}, clientId),
    examples: [{ type: 'input_audio_buffer.commit' }],
  },
  'input_audio_buffer.clear': {
    summary: 'Drops the turn in progress; answered by `input_audio_buffer.cleared`.',
    payload: typed('input_audio_buffer.clear', {}, clientId),
    examples: [{ type: 'input_audio_buffer.clear', event_id: 'clear-1' }],
  },
  'conversation.item.create': {
    summary:
      'Adds an item (text messages, `function_call`, `function_call_output`); answered by ' +
      '`conversation.item.added` and `.done`. Audio and image content, and MCP items, are refused.',
    payload: typed(
      'conversation.item.create',
      { item: ref('RealtimeConversationClientItem') },
      {
        ...clientId,
        previous_item_id: nullable(str(), 'null or `root`: first; left out: last; unknown: `item_not_found`.'),
      },
    ),
    examples: [
      {
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What time is it?' }] },
      },
      {
        type: 'conversation.item.create',
        event_id: 'out-1',
        item: { type: 'function_call_output', call_id: 'call_1', output: '{"time":"12:00"}' },
      },
    ],
  },
  'conversation.item.retrieve': {
    summary: 'Answered by `conversation.item.retrieved`; an unknown item is `item_not_found`.',
    payload: typed('conversation.item.retrieve', itemId, clientId),
    examples: [{ type: 'conversation.item.retrieve', item_id: 'item_1' }],
  },
  'conversation.item.delete': {
    summary: 'Answered by `conversation.item.deleted`; an unknown item is `item_not_found`.',
    payload: typed('conversation.item.delete', itemId, clientId),
    examples: [{ type: 'conversation.item.delete', item_id: 'item_1' }],
  },
  'conversation.item.truncate': {
    summary:
      'What the user heard of an answer: its transcript keeps the words whose audio starts before ' +
      '`audio_end_ms`; answered by `conversation.item.truncated`.',
    payload: typed(
      'conversation.item.truncate',
      {
        ...itemId,
        content_index: int('0..1000', 0),
        audio_end_ms: int('0..86400000', 0),
      },
      clientId,
    ),
    examples: [{ type: 'conversation.item.truncate', item_id: 'item_1', content_index: 0, audio_end_ms: 1200 }],
  },
  'response.create': {
    summary:
      'Asks for an answer (one at a time: `conversation_already_has_active_response`; at most ' +
      '`CONVERSATION_RESPONSE_BURST` at once and `CONVERSATION_RESPONSES_PER_MINUTE` after: ' +
      '`rate_limit_exceeded`, the session goes on). An engine that answers spoken turns by itself ' +
      'refuses it with `unsupported_event`. Its text work is billed in tokens (`response.done.usage`).',
    payload: typed(
      'response.create',
      {},
      {
        ...clientId,
        response: object(
          {},
          {
            instructions: str(),
            tools: array(ref('RealtimeConversationTool')),
            tool_choice: toolChoice,
            output_modalities: modalities,
            max_output_tokens: maxTokens,
            conversation: oneOfValues(['auto', 'none'], '`none`: out of band, its items not added.'),
            input: {
              type: 'array',
              maxItems: 512,
              items: oneOf(
                ref('RealtimeConversationClientItem'),
                object({ type: constant('item_reference'), id: str() }),
              ),
              description: 'The context instead of the conversation.',
            },
            metadata,
            audio: object({}, { output: object({}, { voice: constant(VOICE), format: pcmIn }) }),
            prompt: promptRefused,
          },
        ),
      },
    ),
    examples: [
      { type: 'response.create' },
      {
        type: 'response.create',
        event_id: 'r1',
        response: {
          conversation: 'none',
          instructions: 'Summarise the conversation in one sentence.',
          output_modalities: ['text'],
          metadata: { purpose: 'summary' },
          input: [{ type: 'item_reference', id: 'item_1' }],
        },
      },
    ],
  },
  'response.cancel': {
    summary: 'Ends the active response (`response.done` `cancelled`); none: `response_cancel_not_active`.',
    payload: typed('response.cancel', {}, { ...clientId, response_id: str() }),
    examples: [{ type: 'response.cancel' }, { type: 'response.cancel', response_id: 'resp_1' }],
  },
};
