/**
 * What a socket dialect tells the AsyncAPI document about itself. Each dialect describes itself
 * next to its parser and renderer (`src/gateway/dialects/<dialect>/*.asyncapi.ts`) and is listed once
 * (gateway/dialects/index.ts); the document, its close table and its refusal table are built from these.
 */
import type { ErrorCode } from '../errors/error-codes';
import type { JsonSchema } from './asyncapi-schemas';

export interface MessageDoc {
  readonly summary: string;
  readonly description?: string;
  readonly payload: JsonSchema;
  /** Defaults to application/json; binary frames say application/octet-stream. */
  readonly contentType?: string;
  /** Client messages: sent through the dialect's real parser by the conformance test. */
  readonly examples?: readonly unknown[];
}

/** Why a session ended, as the session core names it (its CloseCause): the input of the close rules. */
export interface SessionEndCause {
  readonly kind: string;
  readonly [field: string]: unknown;
}

/** What a cause comes to: the recorded reason and detail, and the close frame's code (none: no frame). */
export interface CloseOutcomeDoc {
  readonly reason: string;
  readonly detail: string;
  readonly closeCode?: number | null;
}

/** One way a session ends on this socket; reason, detail and close code come from the close rules. */
export interface SessionEndDoc {
  readonly how: string;
  readonly cause: SessionEndCause;
  /** What the server sends before the close frame. */
  readonly lastMessages: string;
}

export interface SocketDialectDoc {
  /** Channel id, and the prefix of this dialect's operations and component schemas. */
  readonly id: string;
  readonly address: string;
  readonly title: string;
  /** Markdown: what the socket is, which clients it serves, how it starts. */
  readonly description: string;
  /** The `ws` channel binding: upgrade query parameters and headers. */
  readonly query?: JsonSchema;
  readonly headers?: JsonSchema;
  /** Names of the document's security schemes that open this socket. */
  readonly security: readonly string[];
  /**
   * Security schemes of this socket's own, for a credential placement the document does not describe
   * yet (AsyncAPI 3 Security Scheme objects, by name); `security` may then name them.
   */
  readonly securitySchemes?: Readonly<Record<string, object>>;
  /** HTTP answers (REST status + ErrorEnvelope) that refuse the upgrade. */
  readonly handshakeRefusals: readonly ErrorCode[];
  /** In-band refusal codes (the dialect's `error` message), when it has one. */
  readonly errorCodes: readonly string[];
  readonly clientMessages: Readonly<Record<string, MessageDoc>>;
  readonly serverMessages: Readonly<Record<string, MessageDoc>>;
  readonly sessionEnds: readonly SessionEndDoc[];
  /** Component schemas this dialect's messages refer to (`#/components/schemas/<name>`). */
  readonly schemas?: Readonly<Record<string, JsonSchema>>;
}

/** What the document is built from; the socket layer supplies it (gateway/dialects/index.ts). */
export interface AsyncApiInputs {
  readonly dialects: readonly SocketDialectDoc[];
  /** Every close reason a session can be recorded with. */
  readonly closeReasons: readonly string[];
  /** The close rules (a method: it takes the session core's own, narrower, cause type). */
  closeOutcome(cause: SessionEndCause): CloseOutcomeDoc;
}
