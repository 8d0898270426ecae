/**
 * The Dialect contract: everything one socket protocol adds to what every socket shares (admission,
 * ports to the database, keep-alive, drain, DELETE). A new dialect is a folder that exports one of
 * these, and one line in dialects/index.ts, which drives the gateways, the AsyncAPI document and the
 * metric labels.
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { ModelCatalog } from '../modules/models';
import type { SocketDialectDoc } from '../platform/openapi/socket-dialect-doc';
import type {
  ConversationLimits,
  SecretConversation,
  SessionConfig,
  SessionRuntime,
  SessionRuntimeOptions,
  SpeechEngine,
} from '../session-core';
import type { ClientFrame } from './connection/client-frames';
import type { SocketCredentials } from './handshake/credential-places';

/**
 * The label of a dialect's sessions in metrics and logs, and its name in the AsyncAPI document: the
 * names in dialects/index.ts, which a spec keeps distinct.
 */
export type DialectName = string;

/** What the service's configuration tells every dialect's query. */
export interface DialectContext {
  /** Other names for the service's models (REALTIME_MODEL_ALIASES): alias → model id. */
  readonly modelAliases: ReadonlyMap<string, string>;
}

/** What a dialect's connection is handed once its socket is open. */
export interface DialectSocket<Q> {
  readonly ws: WebSocket;
  readonly query: Q;
  /** The configuration fixed at the handshake; null on a socket that configures at its start event. */
  readonly config: SessionConfig | null;
  /** A client secret's configuration, which its client may not change; null for an API key. */
  readonly lock: SessionConfig | null;
  /** A conversation's settings its client secret carries (instructions, tools, turns…), normalized; else null. */
  readonly secretConversation: SecretConversation | null;
  /** What every connection passes to its SessionRuntime, but for the engine, transport and renderer. */
  readonly runtime: Omit<SessionRuntimeOptions, 'renderer' | 'engine' | 'transport'>;
  /** A conversation's context budget and what it may keep (used by the dialects that serve conversations). */
  readonly conversation: ConversationLimits;
  /** The default engine (which follows a model change), or a model's own. */
  readonly engines: { readonly default: SpeechEngine; for(model: string): SpeechEngine };
  readonly models: ModelCatalog;
}

/** A dialect's connection: it owns the session runtime and is fed the socket's frames and its end. */
export interface DialectConnection {
  readonly runtime: SessionRuntime;
  onMessage(frame: ClientFrame, isBinary: boolean): void;
  onClose(code: number): void;
}

export interface Dialect<Q = unknown> {
  readonly name: DialectName;
  /** The upgrade's path. */
  readonly path: string;
  /**
   * Where a client may put its credential, in the order they are looked at (the first that holds one
   * decides), and which subprotocol is echoed: building blocks from handshake/credential-places.ts, or
   * a place of the dialect's own.
   */
  readonly credentials: SocketCredentials;
  /**
   * `transcription`: the socket serves transcription sessions only, configured at the handshake
   * (`configure`), so everything that can fail before the first frame fails there, and an API key's
   * session is admitted there too. `any`: the client picks its session at its start event.
   */
  readonly serves: 'any' | 'transcription';
  /** Validates the upgrade's query; throws AppError (`invalid_parameter`, HTTP 400) to refuse. */
  query(req: IncomingMessage, context: DialectContext): Q;
  /**
   * On a socket configured at the handshake that serves more than transcription: the session type
   * and model the query asks for (a client secret's own type wins); absent or null: transcription.
   */
  requested?(query: Q): { readonly type: 'live' | 'transcription'; readonly model: string } | null;
  /**
   * The running call the socket joins as its sideband (a server's control connection), by the id its
   * query names; absent or null: the socket opens a session of its own.
   */
  sideband?(query: Q): string | null;
  /** The language the handshake asks for, if any (checked against the model's languages). */
  language?(query: Q): string | null;
  /** The session's configuration: what the client asked for over the secret's (null for an API key). */
  configure?(query: Q, lock: SessionConfig | null): SessionConfig;
  /** Headers added to the 101 answer, e.g. the session id under the name the protocol's SDKs read. */
  upgradeHeaders?(sessionId: string): string[];
  connect(socket: DialectSocket<Q>): DialectConnection;
  /**
   * Its AsyncAPI channels: one per kind of session whose events differ (the Realtime socket's
   * transcription and conversation sessions share an address, not their messages).
   */
  readonly channels: readonly DialectChannel[];
}

/** One AsyncAPI channel of a dialect, with the parser that holds its client messages to their documentation. */
export interface DialectChannel {
  readonly doc: SocketDialectDoc;
  /**
   * Whether the channel's real parser takes a client text frame as a message (not a refusal): the
   * AsyncAPI e2e spec sends each documented example through it.
   */
  accepts(text: string): boolean;
}
