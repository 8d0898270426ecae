/**
 * What the pure machine asks its driver to do. The runtime executes these in order; tests read
 * them directly. Flat variants (no nested command objects) keep the per-frame push to one object.
 */
import type { ServerEvent } from './session.events';
import type { TranscriptDelta } from './transcript';
import type { CloseReason, MeterBatch, SessionConfig, Usage } from './session.types';

export type Effect =
  /** Render this event in the socket's dialect and send it. */
  | { readonly kind: 'emit'; readonly event: ServerEvent }
  /** Open the engine stream and activate the session row; answer with startSucceeded/startFailed. */
  | { readonly kind: 'open_session'; readonly config: SessionConfig }
  /** Call tick() at this wall-clock time (expiry). */
  | { readonly kind: 'schedule_expiry'; readonly atMs: number }
  | { readonly kind: 'engine_push'; readonly frame: Buffer }
  | { readonly kind: 'engine_commit' }
  | { readonly kind: 'engine_clear' }
  | { readonly kind: 'engine_interrupt' }
  /** An eager end of turn: the engine may prepare its answer to `transcript` (optional method). */
  | { readonly kind: 'engine_prepare'; readonly transcript: string }
  /** The turn went on after an eager end: the prepared answer is dropped. */
  | { readonly kind: 'engine_discard_prepared' }
  /**
   * The session begins to end: the dialect's last work of it (a conversation cuts and bills the
   * response in flight), while the engine is still open and before the session is recorded closed.
   */
  | { readonly kind: 'ending' }
  /** Flush and release the engine stream; final transcripts may still arrive meanwhile. */
  | { readonly kind: 'engine_close' }
  /** Persist a batch of metered frames, in seq order, before the session is recorded closed. */
  | { readonly kind: 'meter'; readonly batch: MeterBatch }
  /** Hand response audio / words to the output pacer. */
  | { readonly kind: 'output_audio'; readonly itemId: string; readonly pcm: Buffer }
  /** Offsets within the response's audio, as the engine gave them. */
  | (TranscriptDelta & { readonly kind: 'output_transcript' })
  /** The engine finished this response: report outputDrained once its audio has played. */
  | { readonly kind: 'output_end'; readonly itemId: string }
  /** Drop all queued output now (barge-in, closing). */
  | { readonly kind: 'output_flush' }
  /** Stop sending output, keeping it queued (speech suspected), until output_release or a flush. */
  | { readonly kind: 'output_hold' }
  | { readonly kind: 'output_release' }
  /**
   * Wait for engine_close and every meter write, record the session closed, then call
   * finalized(): that emits `closed` and closes the transport.
   */
  | { readonly kind: 'finalize'; readonly reason: CloseReason; readonly detail: string; readonly usage: Usage }
  | { readonly kind: 'transport_close'; readonly code: number; readonly reason: string }
  /** Close the engine stream and open one with this configuration, then call engineReopened(). */
  | { readonly kind: 'reopen_engine'; readonly config: SessionConfig }
  /** A frame the dialect made itself (never produced by the machine): sent in order with the rest. */
  | { readonly kind: 'dialect_frame'; readonly frame: string | Buffer }
  /** A dialect's own delivery (a conversation's events to its connections): run in order with the rest. */
  | { readonly kind: 'dialect_call'; readonly work: () => void };

export type EffectKind = Effect['kind'];

/** Shared empty result: most calls on the hot path have nothing to do. */
export const NO_EFFECTS: readonly Effect[] = Object.freeze([]);
