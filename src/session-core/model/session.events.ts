/**
 * The neutral server events: what happened in a session, before any dialect names it.
 * The live dialect renders them as `session.*` events; the compatibility dialects of later
 * issues render the same list as Realtime or Deepgram messages.
 */
import type { TranscriptDelta, TranscriptWord } from './transcript';
import type { CloseReason, SessionDescriptor, SessionError, SessionStats, Usage } from './session.types';

export type WarningCode =
  'audio_while_muted' | 'input_faster_than_realtime' | 'input_dropped' | 'partial_frame' | 'output_audio_dropped';

/** Where a user turn stands (sessions with end-of-turn confidence only; see end-of-turn/). */
export type TurnEventPhase = 'update' | 'eager_end' | 'resumed' | 'end';

export type ServerEvent =
  | { readonly type: 'started'; readonly session: SessionDescriptor; readonly clientEventId?: string }
  | { readonly type: 'updated'; readonly session: SessionDescriptor; readonly clientEventId?: string }
  | { readonly type: 'muted'; readonly clientEventId?: string }
  | { readonly type: 'unmuted'; readonly clientEventId?: string }
  /** Acks of a manual commit / clear (the Realtime dialect's input buffer events). */
  | { readonly type: 'input_committed'; readonly clientEventId?: string }
  | { readonly type: 'input_cleared'; readonly clientEventId?: string }
  /** Offsets on the input-audio timeline. */
  | (TranscriptDelta & {
      readonly type: 'input_transcript';
      readonly confidence?: number;
      readonly words?: readonly TranscriptWord[];
    })
  | { readonly type: 'speech_started'; readonly itemId: string; readonly startMs: number }
  | { readonly type: 'speech_stopped'; readonly itemId: string; readonly endMs: number }
  | {
      readonly type: 'turn';
      readonly phase: TurnEventPhase;
      readonly itemId: string;
      /** Integer ms on the input-audio timeline: the turn's start and how far it was judged. */
      readonly startMs: number;
      readonly endMs: number;
      /** The whole turn so far; on `end` the final transcript. */
      readonly transcript: string;
      /** End-of-turn confidence, 0..1. */
      readonly confidence: number;
      /** On `end`: what ended the turn. */
      readonly trigger?: 'model' | 'manual' | 'timeout';
      readonly words?: readonly TranscriptWord[];
    }
  | { readonly type: 'response_started'; readonly itemId: string }
  /** Sent when the response's audio finished playing (or was cut by barge-in). */
  | { readonly type: 'response_done'; readonly itemId: string; readonly interrupted: boolean }
  /** Offsets on the session timeline (ms since the session started): when these words play. */
  | (TranscriptDelta & { readonly type: 'output_transcript' })
  | {
      readonly type: 'output_audio';
      readonly itemId: string;
      /** pcm16 24 kHz; one 80 ms frame, shorter only at the end of a response. */
      readonly pcm: Buffer;
      /** Integer ms on the session timeline, when this frame plays. */
      readonly startMs: number;
      readonly endMs: number;
    }
  | { readonly type: 'usage'; readonly usage: Usage }
  | { readonly type: 'warning'; readonly code: WarningCode; readonly message: string }
  | { readonly type: 'error'; readonly error: SessionError }
  | {
      readonly type: 'closed';
      readonly reason: CloseReason;
      readonly session: SessionDescriptor;
      readonly usage: Usage;
      /** Machine-readable cause within the reason, e.g. `max_duration_reached`. */
      readonly detail: string;
      readonly stats: SessionStats;
      readonly clientEventId?: string;
    };

export type ServerEventType = ServerEvent['type'];
