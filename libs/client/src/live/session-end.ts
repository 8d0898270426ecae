import type { LiveCloseReason, LiveSessionStats, LiveUsage } from '../../../protocol/live-events.js';

/** How a live session ended, as one typed value (`session.closed` is the only certain account). */
export type LiveSessionEnd =
  /** The server ended the session and said why; usage is final. */
  | {
      kind: 'session_closed';
      reason: LiveCloseReason;
      /** Finer cause: client_requested, session_deleted, max_duration_reached, engine_failed, server_shutdown… */
      detail: string;
      usage: LiveUsage;
      stats: LiveSessionStats;
      code: number;
    }
  /**
   * The socket never opened. Node clients get the HTTP refusal (`status`, `error`); browsers are told
   * nothing by the WebSocket API, so both are null there (refused secret, used secret, or unreachable).
   */
  | { kind: 'not_opened'; code: number; status: number | null; error: HandshakeError | null }
  /** The socket closed without `session.closed`: the final usage was not confirmed. */
  | { kind: 'connection_lost'; code: number; reason: string };

export interface HandshakeError {
  code: string;
  message: string;
  retry_after_ms?: number;
}

/** A sentence for people: what happened and, where it helps, what to do. */
export function describeEnd(end: LiveSessionEnd): string {
  switch (end.kind) {
    case 'session_closed':
      return CLOSE_REASONS[end.reason] + (end.detail ? ` (${end.detail})` : '');
    case 'not_opened':
      if (end.error) return `The socket was refused: ${end.error.message} (${end.error.code})`;
      return 'The socket could not be opened: the secret was refused, already used or expired, or the service is unreachable';
    case 'connection_lost':
      return `The connection was lost (WebSocket close ${end.code}${end.reason ? ` ${end.reason}` : ''})`;
  }
}

const CLOSE_REASONS: Record<LiveCloseReason, string> = {
  close_requested: 'The session was closed on request',
  expired: 'The session reached its time limit',
  connection_lost: 'The session ended on the server side',
};
