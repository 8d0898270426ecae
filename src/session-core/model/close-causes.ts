/**
 * Why a session ends, and what each cause means on the wire. The protocol has three close
 * reasons; the causes keep the finer distinction for `detail`, the close code and whether the
 * client can still be told (a dropped socket cannot).
 */
import type { CloseReason } from './session.types';

export type CloseCause =
  /** `session.close` (or a dialect's equivalent: Realtime close 1000, Deepgram CloseStream). */
  | { readonly kind: 'client'; readonly clientEventId?: string }
  /** `DELETE /v1/sessions/{id}` while the socket is open. */
  | { readonly kind: 'deleted' }
  /** The API key that opened the session (or issued its client secret) was revoked. */
  | { readonly kind: 'key_revoked' }
  /** The maximum session duration was reached. */
  | { readonly kind: 'expired' }
  /** No input audio for the idle time (the core's rule), or a dialect's own (Deepgram: no frame for 10 s). */
  | { readonly kind: 'idle' }
  /** The client broke a per-socket limit: too many control messages, or too many held while the engine opened. */
  | { readonly kind: 'policy'; readonly limit: 'control_rate' | 'held_events' }
  /** The session's own work failed (a bug, not the client's input): the session ends, never the process. */
  | { readonly kind: 'internal_error' }
  /** The socket went away without a close handshake. */
  | { readonly kind: 'transport_lost' }
  /** The peer stopped answering the server's pings: gone without a FIN; the server drops the socket. */
  | { readonly kind: 'keepalive_timeout' }
  /** The client stopped reading: its unsent backlog passed the hard cap. */
  | { readonly kind: 'client_not_reading' }
  /** The engine stream failed (open later rejected, push threw, close rejected). */
  | { readonly kind: 'engine_failed'; readonly message: string }
  /** The engine's upstream (a remote worker) failed and no other could take the stream over. */
  | { readonly kind: 'engine_unavailable'; readonly message: string }
  /** The instance is stopping. */
  | { readonly kind: 'shutdown' }
  /** The client sent what the dialect cannot decode and has no in-band error for (Deepgram DATA-0000). */
  | { readonly kind: 'invalid_input' }
  /** An implicit start (no start event to retry) failed: the engine could not be opened. */
  | { readonly kind: 'start_failed'; readonly code: string };

export interface CloseOutcome {
  readonly reason: CloseReason;
  readonly detail: string;
  /** WebSocket close code after `closed`; null when the socket is already gone. */
  readonly closeCode: number | null;
  /** Whether a `closed` event (and the final usage) can still reach the client. */
  readonly notify: boolean;
}

/**
 * Shutdown and engine failure use `connection_lost` ("the primary or upstream connection dropped
 * unexpectedly") with close codes the official SDK treats as retryable (1001, 1011), so a client
 * with reconnect enabled lands on a healthy instance; a client that stopped reading gets 1008.
 */
export function closeOutcome(cause: CloseCause): CloseOutcome {
  switch (cause.kind) {
    case 'client':
      return { reason: 'close_requested', detail: 'client_requested', closeCode: 1000, notify: true };
    case 'deleted':
      return { reason: 'close_requested', detail: 'session_deleted', closeCode: 1000, notify: true };
    case 'key_revoked':
      // An operator's request, like a deletion; 1008 (policy): the credential behind it is gone.
      return { reason: 'close_requested', detail: 'key_revoked', closeCode: 1008, notify: true };
    case 'expired':
      return { reason: 'expired', detail: 'max_duration_reached', closeCode: 1000, notify: true };
    case 'idle':
      // Deepgram closes an idle stream with 1011 (NET-0001); compatible clients expect that code.
      return { reason: 'expired', detail: 'idle_timeout', closeCode: 1011, notify: true };
    case 'transport_lost':
      return { reason: 'connection_lost', detail: 'client_disconnected', closeCode: null, notify: false };
    case 'keepalive_timeout':
      return { reason: 'connection_lost', detail: 'keepalive_timeout', closeCode: null, notify: false };
    case 'client_not_reading':
      return { reason: 'connection_lost', detail: 'client_not_reading', closeCode: 1008, notify: true };
    case 'engine_failed':
      return { reason: 'connection_lost', detail: 'engine_failed', closeCode: 1011, notify: true };
    case 'engine_unavailable':
      // Retryable for the SDKs (1011): a new session lands on whatever workers are back.
      return { reason: 'connection_lost', detail: 'engine_unavailable', closeCode: 1011, notify: true };
    case 'shutdown':
      return { reason: 'connection_lost', detail: 'server_shutdown', closeCode: 1001, notify: true };
    case 'policy':
      return { reason: 'connection_lost', detail: `${cause.limit}_exceeded`, closeCode: 1008, notify: true };
    case 'internal_error':
      return { reason: 'connection_lost', detail: 'internal_error', closeCode: 1011, notify: true };
    case 'invalid_input':
      return { reason: 'connection_lost', detail: 'invalid_input', closeCode: 1008, notify: true };
    case 'start_failed':
      // Nothing started, so nothing to report; 1013 (try again later) when only capacity was missing.
      return {
        reason: 'connection_lost',
        detail: cause.code,
        closeCode: cause.code === 'capacity_exhausted' ? 1013 : 1011,
        notify: false,
      };
  }
}
