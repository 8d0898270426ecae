/**
 * The inbound half of the live dialect: one client frame in, one neutral command out. A frame
 * that cannot be served becomes a `reject` command, so the session answers it with an `error`
 * event in order with everything else, and never closes for it.
 */
import { LIVE_REFUSED_EVENTS } from '../../../libs/protocol/live-events';
import type { SessionCommand } from '../../session-core/session.commands';
import type { SessionConfig } from '../../session-core/session.types';
import { checkLiveUpdate, isRecord, reject, resolveLiveStart } from './live.protocol.start';

export interface LiveParseContext {
  /** The client secret's configuration (a start must match it); null for an API-key session. */
  readonly lock: SessionConfig | null;
  /** Larger frames are answered with `message_too_large` (set ws maxPayload above this). */
  readonly maxMessageBytes: number;
}

/** 1 MiB: about 15 s of base64 audio, far past what the input rate guard lets through anyway. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

export type LiveFrame = string | Buffer | ArrayBuffer | Buffer[];

const REFUSED: ReadonlySet<string> = new Set(LIVE_REFUSED_EVENTS);
/** What the official SDK sends for an append without event_id: parsed without JSON.parse. */
const APPEND_PREFIX = '{"type":"session.input_audio.append","audio":"';
const APPEND_SUFFIX = '"}';

export function parseLiveFrame(frame: LiveFrame, isBinary: boolean, context: LiveParseContext): SessionCommand {
  if (isBinary) {
    // Extension: a binary frame is raw pcm16, the mirror of binary output.
    const audio = toBuffer(frame);
    return audio.length > context.maxMessageBytes ? tooLarge(context) : { type: 'append', audio };
  }
  const text = typeof frame === 'string' ? frame : toBuffer(frame).toString('utf8');
  if (text.length > context.maxMessageBytes) return tooLarge(context);
  if (text.startsWith(APPEND_PREFIX) && text.endsWith(APPEND_SUFFIX)) {
    const audio = text.slice(APPEND_PREFIX.length, text.length - APPEND_SUFFIX.length);
    if (!audio.includes('"')) return parseAppend(audio, undefined);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reject('invalid_json', 'the frame is not valid JSON', null);
  }
  if (!isRecord(value) || typeof value.type !== 'string') {
    return reject('invalid_event', 'a client event is a JSON object with a string "type"', 'type');
  }
  const eventId = value.event_id;
  if (eventId !== undefined && eventId !== null && typeof eventId !== 'string') {
    return reject('invalid_parameter', 'event_id must be a string', 'event_id');
  }
  const clientEventId = typeof eventId === 'string' ? eventId : undefined;
  const withId = <T extends SessionCommand>(command: T): T =>
    clientEventId === undefined ? command : { ...command, clientEventId };
  switch (value.type) {
    case 'session.input_audio.append':
      return parseAppend(value.audio, clientEventId);
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
      return REFUSED.has(value.type)
        ? reject('unsupported_event', `${value.type} is not supported by this service`, 'type', clientEventId)
        : reject('unknown_event', `unknown event type ${JSON.stringify(value.type)}`, 'type', clientEventId);
  }
}

/** Strict base64: whole quads, and no character the decoder would skip. */
function parseAppend(audio: unknown, clientEventId: string | undefined): SessionCommand {
  if (typeof audio !== 'string' || audio.length % 4 !== 0) {
    return reject('invalid_audio', 'audio must be a base64 string of pcm16 24 kHz mono', 'audio', clientEventId);
  }
  const bytes = Buffer.from(audio, 'base64');
  const padding = audio.endsWith('==') ? 2 : audio.endsWith('=') ? 1 : 0;
  if (bytes.length !== (audio.length / 4) * 3 - padding) {
    return reject('invalid_audio', 'audio is not valid base64', 'audio', clientEventId);
  }
  return clientEventId === undefined
    ? { type: 'append', audio: bytes }
    : { type: 'append', audio: bytes, clientEventId };
}

function tooLarge(context: LiveParseContext): SessionCommand {
  return reject('message_too_large', `a frame may hold at most ${context.maxMessageBytes} bytes`, null);
}

function toBuffer(frame: LiveFrame): Buffer {
  if (Buffer.isBuffer(frame)) return frame;
  if (typeof frame === 'string') return Buffer.from(frame, 'utf8');
  if (Array.isArray(frame)) return Buffer.concat(frame);
  return Buffer.from(frame);
}
