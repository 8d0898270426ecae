/**
 * The inbound half of the Realtime dialect (transcription mode, GA events): one client frame in,
 * one neutral command out. A frame that cannot be served becomes a `reject`, answered with an
 * `error` event in order with everything else; errors never close the socket.
 */
import type { SessionCommand } from '../../../session-core';
import {
  ClientFrame,
  isClientEvent,
  parseBase64Append,
  readClientEvent,
  reject,
  type ClientEvent,
} from '../../connection/client-frames';
import { resolveSessionUpdate } from './realtime.session-update';

export interface RealtimeParseContext {
  /** Larger frames are answered with `message_too_large` (set ws maxPayload above this). */
  readonly maxMessageBytes: number;
}

export type RealtimeFrame = ClientFrame;

/** 1 MiB: about 15 s of base64 audio; OpenAI allows 15 MiB, but the input rate guard cuts far earlier. */
export const REALTIME_MAX_MESSAGE_BYTES = 1024 * 1024;

/** What the official SDK sends for an append without event_id: parsed without JSON.parse. */
const APPEND_PREFIX = '{"type":"input_audio_buffer.append","audio":"';
const APPEND_SUFFIX = '"}';

/** Client events of the conversational Realtime API: they have no meaning in a transcription session. */
const CONVERSATION_EVENTS: ReadonlySet<string> = new Set([
  'conversation.item.create',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'conversation.item.delete',
  'response.create',
  'response.cancel',
  'output_audio_buffer.clear',
]);

/**
 * What both Realtime parsers (transcription and conversation sessions) read first: a client event, its
 * base64 appends parsed without JSON.parse, or a refusal (a binary frame, bad JSON, an oversized message).
 */
export function readRealtimeEvent(
  frame: RealtimeFrame,
  isBinary: boolean,
  maxMessageBytes: number,
): ClientEvent | SessionCommand {
  if (isBinary) {
    return reject(
      'invalid_event',
      'binary frames are not part of the Realtime protocol: send input_audio_buffer.append with base64 audio',
      null,
    );
  }
  return readClientEvent(frame, {
    maxMessageBytes,
    appendPrefix: APPEND_PREFIX,
    appendSuffix: APPEND_SUFFIX,
    parseAppend: parseBase64Append,
    badEventIdCode: 'invalid_type',
  });
}

export function parseRealtimeFrame(
  frame: RealtimeFrame,
  isBinary: boolean,
  context: RealtimeParseContext,
): SessionCommand {
  const read = readRealtimeEvent(frame, isBinary, context.maxMessageBytes);
  if (!isClientEvent(read)) return read;
  const { type, fields: value, clientEventId } = read;
  const withId = <T extends SessionCommand>(command: T): T =>
    clientEventId === undefined ? command : { ...command, clientEventId };
  switch (type) {
    case 'input_audio_buffer.append':
      return parseBase64Append(value.audio, clientEventId);
    case 'input_audio_buffer.commit':
      return withId({ type: 'commit' });
    case 'input_audio_buffer.clear':
      return withId({ type: 'clear' });
    case 'session.update':
      return resolveSessionUpdate(value.session, clientEventId);
    case 'transcription_session.update':
      return reject(
        'invalid_value',
        'Invalid value: \'transcription_session.update\'. Send session.update with session.type "transcription".',
        'type',
        clientEventId,
      );
    default:
      return CONVERSATION_EVENTS.has(type)
        ? reject('unsupported_event', `${type} has no meaning in a transcription session`, 'type', clientEventId)
        : reject('invalid_value', `Invalid value: ${JSON.stringify(type)}. Unknown event type.`, 'type', clientEventId);
  }
}
