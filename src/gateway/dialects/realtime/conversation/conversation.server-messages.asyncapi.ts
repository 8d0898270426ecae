/**
 * What the server sends on the conversation channel (conversation.asyncapi.ts): the session, item,
 * turn, transcript and response events, and `error`. The idle timeout's event is in
 * conversation.turns.asyncapi.ts.
 */
import type { MessageDoc } from '../../../../platform/openapi/socket-dialect-doc';
import {
  array,
  constant,
  int,
  nullable,
  num,
  object,
  ref,
  str,
  typed,
} from '../../../../platform/openapi/asyncapi-schemas';
import { serverId } from '../realtime.asyncapi';
import { itemId, oneOf } from './conversation.schemas.asyncapi';
import { TIMEOUT_TRIGGERED } from './conversation.turns.asyncapi';

const responseOut = { response_id: str('`resp_<n>`.'), output_index: int(undefined, 0) };
const contentRef = { ...responseOut, item_id: str(), content_index: int(undefined, 0) };

const itemEvent = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, {
    ...serverId,
    previous_item_id: nullable(str(), 'null: the first item.'),
    item: ref('RealtimeConversationItem'),
  }),
});
const outputItem = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, { ...serverId, ...responseOut, item: ref('RealtimeConversationItem') }),
});
const contentPart = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, {
    ...serverId,
    ...contentRef,
    part: oneOf(
      object({ type: constant('audio'), transcript: str() }),
      object({ type: constant('text'), text: str() }),
    ),
  }),
});
const delta = (type: string, summary: string): MessageDoc => ({
  summary,
  payload: typed(type, { ...serverId, ...contentRef, delta: str() }),
});
const transcript = { item_id: str(), content_index: constant(0) };

export const CONVERSATION_SERVER_MESSAGES: Record<string, MessageDoc> = {
  'session.created': {
    summary: 'First message, on connect: the whole session.',
    payload: typed('session.created', { ...serverId, session: ref('RealtimeConversationSession') }),
  },
  'session.updated': {
    summary: 'Answers `session.update` with the whole session.',
    payload: typed('session.updated', { ...serverId, session: ref('RealtimeConversationSession') }),
  },
  'conversation.item.added': itemEvent(
    'conversation.item.added',
    'An item joined the conversation (a client’s, a user turn, a response’s output as it starts).',
  ),
  'conversation.item.done': itemEvent('conversation.item.done', 'An item is complete (a user turn: its transcript).'),
  'conversation.item.retrieved': {
    summary: 'Answers `conversation.item.retrieve`.',
    payload: typed('conversation.item.retrieved', { ...serverId, item: ref('RealtimeConversationItem') }),
  },
  'conversation.item.deleted': {
    summary: 'Answers `conversation.item.delete`.',
    payload: typed('conversation.item.deleted', { ...serverId, ...itemId }),
  },
  'conversation.item.truncated': {
    summary: 'Answers `conversation.item.truncate`; the item is now `incomplete`.',
    payload: typed('conversation.item.truncated', {
      ...serverId,
      ...itemId,
      content_index: int(undefined, 0),
      audio_end_ms: int(undefined, 0),
    }),
  },
  'input_audio_buffer.speech_started': {
    summary:
      'Turn detection heard speech begin; over an answer it cancels that answer (unless `interrupt_response` is false).',
    payload: typed('input_audio_buffer.speech_started', { ...serverId, ...itemId, audio_start_ms: int(undefined, 0) }),
  },
  'input_audio_buffer.speech_stopped': {
    summary: 'Turn detection heard the turn end; `input_audio_buffer.committed` follows.',
    payload: typed('input_audio_buffer.speech_stopped', { ...serverId, ...itemId, audio_end_ms: int(undefined, 0) }),
  },
  'input_audio_buffer.committed': {
    summary: 'A user turn became an item.',
    payload: typed('input_audio_buffer.committed', {
      ...serverId,
      ...itemId,
      previous_item_id: nullable(str(), 'null for the first item.'),
    }),
  },
  'input_audio_buffer.cleared': {
    summary: 'Answers `input_audio_buffer.clear`.',
    payload: typed('input_audio_buffer.cleared', serverId),
  },
  ...TIMEOUT_TRIGGERED,
  'input_audio_buffer.dtmf_event_received': {
    summary:
      'Phone calls: the caller pressed a key (`event`: the digit, `*` or `#`; `received_at`: Unix seconds), as ' +
      'OpenAI’s SIP calls tell it. The model also hears it, as the user message `[DTMF <digit>]` answered at once.',
    payload: typed('input_audio_buffer.dtmf_event_received', {
      ...serverId,
      event: str(),
      received_at: int(undefined, 0),
    }),
  },
  'conversation.item.input_audio_transcription.delta': {
    summary: 'Each word of the user turn as the recogniser hears it.',
    payload: typed('conversation.item.input_audio_transcription.delta', { ...serverId, ...transcript, delta: str() }),
  },
  'conversation.item.input_audio_transcription.completed': {
    summary: 'The user turn’s transcript, with its audio duration.',
    payload: typed('conversation.item.input_audio_transcription.completed', {
      ...serverId,
      ...transcript,
      transcript: str(),
      usage: object({ type: constant('duration'), seconds: num() }),
    }),
  },
  'response.created': {
    summary: 'A response started (asked for, or a turn answered on its own with `create_response`).',
    payload: typed('response.created', { ...serverId, response: ref('RealtimeConversationResponse') }),
  },
  'rate_limits.updated': {
    summary:
      'Right after each `response.created`: the limit that binds this socket, its control-message bucket ' +
      '(`requests`; `limit` is `SOCKET_CONTROL_BURST`); tokens are not limited per socket.',
    payload: typed('rate_limits.updated', {
      ...serverId,
      rate_limits: array(
        object({
          name: constant('requests'),
          limit: int(),
          remaining: int(),
          reset_seconds: num('Seconds until the bucket is full again.'),
        }),
      ),
    }),
  },
  'response.output_item.added': outputItem('response.output_item.added', 'An answer or a tool call starts.'),
  'response.output_item.done': outputItem('response.output_item.done', 'An answer or a tool call is complete.'),
  'response.content_part.added': contentPart('response.content_part.added', 'The answer’s audio or text part.'),
  'response.content_part.done': contentPart('response.content_part.done', 'The part, complete.'),
  'response.output_audio.delta': delta(
    'response.output_audio.delta',
    'The voice: base64 pcm16 mono 24 kHz, paced in real time.',
  ),
  'response.output_audio.done': {
    summary: 'The voice is complete.',
    payload: typed('response.output_audio.done', { ...serverId, ...contentRef }),
  },
  'response.output_audio_transcript.delta': delta(
    'response.output_audio_transcript.delta',
    'Each word of a spoken answer, just before its audio.',
  ),
  'response.output_audio_transcript.done': {
    summary: 'The spoken answer’s whole text.',
    payload: typed('response.output_audio_transcript.done', { ...serverId, ...contentRef, transcript: str() }),
  },
  'response.output_text.delta': delta('response.output_text.delta', 'Text of an answer without audio.'),
  'response.output_text.done': {
    summary: 'The text answer, whole.',
    payload: typed('response.output_text.done', { ...serverId, ...contentRef, text: str() }),
  },
  'response.function_call_arguments.delta': {
    summary: 'A tool call’s arguments as the chat model streams them.',
    payload: typed('response.function_call_arguments.delta', {
      ...serverId,
      ...responseOut,
      ...itemId,
      call_id: str(),
      delta: str(),
    }),
  },
  'response.function_call_arguments.done': {
    summary: 'A tool call, complete: run it and send its `function_call_output`, then `response.create`.',
    payload: typed('response.function_call_arguments.done', {
      ...serverId,
      ...responseOut,
      ...itemId,
      call_id: str(),
      name: str(),
      arguments: str(),
    }),
  },
  'response.done': {
    summary: 'The response ended: `completed`, `cancelled`, `incomplete` or `failed`, with the tokens reported.',
    payload: typed('response.done', { ...serverId, response: ref('RealtimeConversationResponse') }),
  },
  error: {
    summary: 'A refused client event (the socket stays open), a failed answer, or why the server ends the session.',
    payload: typed('error', { ...serverId, error: ref('RealtimeConversationError') }),
  },
};
