/**
 * What every dialect's parser does with a client frame before its own event names matter: bytes,
 * size, the JSON envelope (an object with a string `type` and an optional string `event_id`), and the
 * shape of a refusal. Refusals are `reject` commands, answered in order; they never close the socket.
 */
import type { SessionCommand } from '../../session-core';

/** What ws hands a message listener. */
export type ClientFrame = string | Buffer | ArrayBuffer | Buffer[];
export type Fields = Record<string, unknown>;
export type Reject = Extract<SessionCommand, { type: 'reject' }>;

export function toBuffer(frame: ClientFrame): Buffer {
  if (Buffer.isBuffer(frame)) return frame;
  if (typeof frame === 'string') return Buffer.from(frame, 'utf8');
  if (Array.isArray(frame)) return Buffer.concat(frame);
  return Buffer.from(frame);
}

export function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function reject(code: string, message: string, param: string | null, clientEventId?: string): Reject {
  return clientEventId === undefined
    ? { type: 'reject', code, message, param }
    : { type: 'reject', code, message, param, clientEventId };
}

/**
 * A base64 `audio` field → an append of its bytes. Strict: whole quads and no character the decoder
 * would skip, so corrupted audio is refused rather than silently shortened.
 */
export function parseBase64Append(audio: unknown, clientEventId: string | undefined): SessionCommand {
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

export interface ClientEvent {
  readonly type: string;
  readonly fields: Fields;
  readonly clientEventId: string | undefined;
}

export interface EnvelopeRules {
  readonly maxMessageBytes: number;
  /** The exact text an SDK sends for an append without event_id, split around the base64 audio. */
  readonly appendPrefix: string;
  readonly appendSuffix: string;
  readonly parseAppend: (audio: unknown, clientEventId: string | undefined) => SessionCommand;
  /** The dialect's code for an event_id that is not a string. */
  readonly badEventIdCode: string;
}

/**
 * A text frame → its client event, or the command that already answers it: a refusal, or an audio
 * append read without JSON.parse (the hot path: most frames are appends).
 */
export function readClientEvent(frame: ClientFrame, rules: EnvelopeRules): ClientEvent | SessionCommand {
  const text = typeof frame === 'string' ? frame : toBuffer(frame).toString('utf8');
  if (text.length > rules.maxMessageBytes) {
    return reject('message_too_large', `a frame may hold at most ${rules.maxMessageBytes} bytes`, null);
  }
  if (text.startsWith(rules.appendPrefix) && text.endsWith(rules.appendSuffix)) {
    const audio = text.slice(rules.appendPrefix.length, text.length - rules.appendSuffix.length);
    if (!audio.includes('"')) return rules.parseAppend(audio, undefined);
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
    return reject(rules.badEventIdCode, 'event_id must be a string', 'event_id');
  }
  return { type: value.type, fields: value, clientEventId: typeof eventId === 'string' ? eventId : undefined };
}

export function isClientEvent(read: ClientEvent | SessionCommand): read is ClientEvent {
  return 'fields' in read;
}
