/**
 * The seam between one conversation session and the connections that drive it. A connection is any
 * transport that speaks a dialect: a WebSocket, a WebRTC data channel (`oai-events`) beside its
 * media track, a carrier's media stream, a server's control socket (the "sideband"). It renders what
 * the session says in its own vocabulary and parses what its client sends into requests; the
 * session holds the one conversation, whatever number of connections watch it.
 */
import type { AudioFormatName, AudioFormats } from '../../platform/audio/audio-format';
import type { SessionCommand } from '../model/session.commands';
import type { ServerEvent } from '../model/session.events';
import type { SessionDescriptor, SessionError } from '../model/session.types';
import type { TurnDetectionConfig } from '../engine/engine.port';
import type { ConversationEvent, ConversationItem, ConversationSettings, ResponseOptions } from './conversation.types';

/** The control-message allowance as it stands (Realtime's `rate_limits.updated`). */
export interface ControlAllowance {
  readonly limit: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/**
 * What a conversation session tells its connections: the conversation's events, and the session's
 * own (`session_created`/`session_updated` with the settings in force and the dialect's view of
 * them, the allowance at a response's start, the end). `V` is the dialect's view of the settings:
 * what it shows beyond them (OpenAI's turn_detection object as set, the voice…), held per session
 * so every connection shows the same.
 */
export type ConversationOutput<V> =
  | ConversationEvent
  | {
      readonly type: 'session_created' | 'session_updated';
      readonly session: SessionDescriptor;
      readonly settings: ConversationSettings;
      readonly view: V;
    }
  | { readonly type: 'rate_limits'; readonly allowance: ControlAllowance }
  /** A keypress on a phone call (`receivedAt`: Unix seconds); the model hears it apart, as the caller's input. */
  | { readonly type: 'dtmf'; readonly digit: string; readonly receivedAt: number }
  | Extract<ServerEvent, { type: 'closed' }>;

/**
 * One connection to a conversation. `send` renders and writes at once (a transport that is not
 * open yet, such as a data channel still connecting, keeps what it is sent); a throw means the
 * connection is gone. `close` ends it (the session's end, or a control connection that broke a
 * limit). `bufferedAmount` is what it has not written yet: output audio is dropped, and the session
 * ended as `client_not_reading`, by the media connection's alone.
 */
export interface ConversationConnection<V> {
  send(output: ConversationOutput<V>): void;
  close(code: number, reason: string): void;
  readonly bufferedAmount: number;
}

/**
 * Which part a connection plays. `media`: the one connection whose input audio the session hears
 * and whose leaving ends the session (the caller's socket, data channel or media stream; it gets the
 * output audio). `control`: a server's connection beside it (`/v1/realtime?call_id=…`): it sees every
 * event but the output audio, may send every client event but input audio, and leaving ends nothing.
 */
export type ConnectionRole = 'media' | 'control';

/** A settings change a dialect parsed from its `session.update` (V: its view, as above). */
export interface ConversationSettingsChange<V> {
  readonly settings: Partial<ConversationSettings>;
  readonly view: Partial<V>;
  /** Present when turn detection changes (the engine stream is reopened before the first audio). */
  readonly turnDetection?: TurnDetectionConfig | null;
  /** With turnDetection: `interrupt_response` and `idle_timeout_ms` (null: off), which change at any time. */
  readonly interruptResponse?: boolean;
  readonly idleTimeoutMs?: number | null;
  /** The media connection's audio formats, which change at once. */
  readonly audioFormats?: Partial<AudioFormats>;
}

/** What a dialect's parser makes of a client event beyond the session commands every session takes. */
export type ConversationRequest<V> =
  | { type: 'session_update'; update: ConversationSettingsChange<V>; clientEventId?: string }
  | { type: 'item_create'; item: ConversationItem; previousItemId?: string | null; clientEventId?: string }
  | { type: 'item_retrieve'; itemId: string; clientEventId?: string }
  | { type: 'item_delete'; itemId: string; clientEventId?: string }
  | { type: 'item_truncate'; itemId: string; contentIndex: number; audioEndMs: number; clientEventId?: string }
  | { type: 'response_create'; options: ResponseOptions; outputFormat?: AudioFormatName; clientEventId?: string }
  | { type: 'response_cancel'; responseId?: string; clientEventId?: string };

/** A client event as a connection hands it to its session. */
export type ConversationClientEvent<V> = SessionCommand | ConversationRequest<V>;

/** A refusal in the dialect's words: the code, message and `param` its clients read. */
export type ConversationRefusal = Pick<SessionError, 'code' | 'message'> & { readonly param: string | null };

/**
 * The session decides what its engine cannot serve; the dialect says it in its own words (its
 * parameter names are its vocabulary).
 */
export interface ConversationRefusals<V> {
  /** Tools asked of an engine that cannot call them: in the session's settings or one response's. */
  tools(where: 'session' | 'response'): ConversationRefusal;
  /**
   * What an engine that answers spoken turns by itself cannot do of this change (keep answering
   * over the user, prompt after a silence); null when the change asks for neither.
   */
  unservedBySelfAnswering(change: ConversationSettingsChange<V>): ConversationRefusal | null;
  /** A response asked in another output format than the session's. */
  outputFormat(asked: AudioFormatName, inForce: AudioFormatName): ConversationRefusal;
  /** Input audio sent on a control connection: the session hears its media connection only. */
  audioOnControl(): ConversationRefusal;
  /** An audio format change sent on a control connection: the formats are the media connection's. */
  formatOnControl(): ConversationRefusal;
}
