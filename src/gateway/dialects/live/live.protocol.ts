/**
 * The inbound half of the live dialect: one client frame in, one neutral command out. A frame
 * that cannot be served becomes a `reject` command, so the session answers it with an `error`
 * event in order with everything else, and never closes for it.
 */
import { LIVE_REFUSED_EVENTS } from '../../../../libs/protocol/live-events';
import type { SessionCommand } from '../../../session-core';
import type { SessionConfig } from '../../../session-core';
import {
  ClientFrame,
  isClientEvent,
  parseBase64Append,
  readClientEvent,
  reject,
  toBuffer,
} from '../../connection/client-frames';
import { checkLiveUpdate, resolveLiveStart } from './live.start';

export interface LiveParseContext {
  /** The client secret's configuration (a start must match it); null for an API-key session. */
  readonly lock: SessionConfig | null;
  /** Larger frames are answered with `message_too_large` (set ws maxPayload above this). */
  readonly maxMessageBytes: number;
}

/** 1 MiB: about 15 s of base64 audio, far past what the input rate guard lets through anyway. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

export type LiveFrame = ClientFrame;

const REFUSED: ReadonlySet<string> = new Set(LIVE_REFUSED_EVENTS);
/** What the official SDK sends for an append without event_id: parsed without JSON.parse. */
const APPEND_PREFIX = '{"type":"session.input_audio.append","audio":"';
const APPEND_SUFFIX = '"}';

export function parseLiveFrame(frame: LiveFrame, isBinary: boolean, context: LiveParseContext): SessionCommand {
  if (isBinary) {
    // Extension: a binary frame is raw pcm16, the mirror of binary output.
    const audio = toBuffer(frame);
    return audio.length > context.maxMessageBytes
      ? reject('message_too_large', `a frame may hold at most ${context.maxMessageBytes} bytes`, null)
      : { type: 'append', audio };
  }
  const read = readClientEvent(frame, {
    maxMessageBytes: context.maxMessageBytes,
    appendPrefix: APPEND_PREFIX,
    appendSuffix: APPEND_SUFFIX,
    parseAppend: parseBase64Append,
    badEventIdCode: 'invalid_parameter',
  });
  if (!isClientEvent(read)) return read;
  const { type, fields: value, clientEventId } = read;
  const withId = <T extends SessionCommand>(command: T): T =>
    clientEventId === undefined ? command : { ...command, clientEventId };
  switch (type) {
    case 'session.input_audio.append':
      return parseBase64Append(value.audio, clientEventId);
    case 'session.start':
      return resolveLiveStart(value.session, clientEventId, context.lock);
    case 'session.update':
      return checkLiveUpdate(value.session, clientEventId);
    case 'session.close':
      return withId({ type: 'close' });
    case 'session.input_audio.mute':
      return withId({ type: 'mute' });
    case 'session.input_audio.unmute':
      return withId({ type: 'unmute' });
    default:
      return REFUSED.has(type)
        ? reject('unsupported_event', `${type} is not supported by this service`, 'type', clientEventId)
        : reject('unknown_event', `unknown event type ${JSON.stringify(type)}`, 'type', clientEventId);
  }
}
