/**
 * The live socket's wire format (`/v1/live/sessions`), shared by the server, clients and tests.
 * It follows the live-conversation convention of the official `openai` SDK (`LiveWS`): the
 * client speaks first with `session.start`; every server event but output audio carries a
 * server `event_id`; `client_event_id` is echoed only when the client sent `event_id`.
 * Extensions: `session.turn.event`, `session.input_audio.warning`, `session.output_audio.warning`,
 * binary output (and input) frames, transcript `item_id`/`done`/`transcript`, output audio
 * timing, `detail` and `stats` on `session.closed`, `frames` in usage.
 */

export const LIVE_PATH = '/v1/live/sessions';

export interface LiveAudioFormat {
  type: 'audio/pcm';
  rate: 24000;
}

export type LiveOutputEncoding = 'base64' | 'binary';

/** The `session` of `session.start`. Only `model` is required; omitted values take defaults. */
export interface LiveSessionConfig {
  model: string;
  audio?: {
    format?: LiveAudioFormat;
    output?: { voice?: string | { id: string }; encoding?: LiveOutputEncoding };
  };
  /** Unsupported: the persona is fixed. Null or empty only. */
  instructions?: string | null;
  /** Unsupported: no starting history. Empty only. */
  input?: unknown[];
  delegation?: { type: 'client' } | null;
  store?: false;
  triggers?: unknown[];
}

/** The `session` of `session.update`: nothing of ours is mutable, so only no-op values pass. */
export interface LiveSessionUpdate {
  delegation?: { type: 'client' } | null;
  triggers?: unknown[];
}

export type LiveClientEvent =
  | { type: 'session.start'; event_id?: string; session: LiveSessionConfig }
  | { type: 'session.update'; event_id?: string; session?: LiveSessionUpdate }
  | { type: 'session.close'; event_id?: string }
  /** Base64 of pcm16 24 kHz mono; no acknowledgement. A binary frame of raw pcm16 is accepted too. */
  | { type: 'session.input_audio.append'; event_id?: string; audio: string }
  | { type: 'session.input_audio.mute'; event_id?: string }
  | { type: 'session.input_audio.unmute'; event_id?: string };

/** Client events of the convention this service refuses with `unsupported_event`. */
export const LIVE_REFUSED_EVENTS = [
  'session.commentary.append',
  'session.thinking.append',
  'session.instructions.append',
  'response.create',
  'response.item.create',
] as const;

export interface LiveSessionResource {
  id: string;
  object: 'session';
  type: 'live' | 'transcription';
  model: string;
  /** Always `active`, even inside `session.closed` (the convention's rule). */
  status: 'active';
  /** Unix seconds. */
  expires_at: number;
  audio: {
    format: LiveAudioFormat;
    /** Absent for transcription sessions, which do not speak. */
    output?: { voice: string; encoding: LiveOutputEncoding };
  };
  instructions: null;
  input: [];
  delegation: { type: 'client' };
  store: false;
}

export interface LiveUsage {
  /** Cumulative: frames * 0.08. */
  seconds: number;
  frames: number;
}

export interface LiveSessionStats {
  duration_ms: number;
  input_frames: number;
  muted_frames: number;
  dropped_input_ms: number;
  output_frames: number;
  output_dropped_frames: number;
  turns: number;
  responses: number;
  interruptions: number;
  warnings: number;
  errors: number;
}

export interface LiveError {
  type: 'invalid_request_error' | 'server_error';
  code: string;
  message: string;
  param: string | null;
  client_event_id?: string;
}

export type LiveTurnEvent =
  | { type: 'speech_started'; item_id: string; start_ms: number }
  | { type: 'speech_stopped'; item_id: string; end_ms: number }
  | { type: 'response_started'; item_id: string }
  /** The response's audio has played out, or was cut (`interrupted`) by barge-in. */
  | { type: 'response_done'; item_id: string; interrupted: boolean }
  /** End-of-turn confidence (sessions with `turn_detection.end_of_turn`): the user probably finished. */
  | { type: 'eager_end_of_turn'; item_id: string; confidence: number; transcript: string }
  /** After eager_end_of_turn the user went on: a prepared answer was dropped. */
  | { type: 'turn_resumed'; item_id: string }
  /** The turn ended: by the model's confidence, a manual commit, or the silence timeout. */
  | { type: 'end_of_turn'; item_id: string; confidence: number; trigger: 'model' | 'manual' | 'timeout' };

export type LiveWarningCode =
  'audio_while_muted' | 'input_faster_than_realtime' | 'input_dropped' | 'partial_frame' | 'output_audio_dropped';

export interface LiveTranscriptDelta {
  event_id: string;
  item_id: string;
  delta: string;
  /** Integer ms: input on the input-audio timeline, output on the session's playback timeline. */
  start_ms: number;
  end_ms: number;
  done: boolean;
  /** The item's whole text, on the event with `done: true`. */
  transcript?: string;
}

export type LiveCloseReason = 'close_requested' | 'expired' | 'connection_lost';

export type LiveServerEvent =
  | { type: 'session.started'; event_id: string; client_event_id?: string; session: LiveSessionResource }
  | { type: 'session.updated'; event_id: string; client_event_id?: string; session: LiveSessionResource }
  | { type: 'session.input_audio.muted'; event_id: string; client_event_id?: string }
  | { type: 'session.input_audio.unmuted'; event_id: string; client_event_id?: string }
  | ({ type: 'session.input_transcript.delta' } & LiveTranscriptDelta)
  | ({ type: 'session.output_transcript.delta' } & LiveTranscriptDelta)
  /** No event_id (the convention's rule). With `encoding: 'binary'` a binary frame of raw pcm16 instead. */
  | { type: 'session.output_audio.delta'; item_id: string; delta: string; start_ms: number; end_ms: number }
  | { type: 'session.turn.event'; event_id: string; event: LiveTurnEvent }
  | { type: 'session.input_audio.warning'; event_id: string; code: LiveWarningCode; message: string }
  | { type: 'session.output_audio.warning'; event_id: string; code: LiveWarningCode; message: string }
  | { type: 'session.usage.updated'; event_id: string; usage: LiveUsage }
  | {
      type: 'session.closed';
      event_id: string;
      client_event_id?: string;
      reason: LiveCloseReason;
      session: LiveSessionResource;
      usage: LiveUsage;
      /** Finer cause: client_requested, session_deleted, max_duration_reached, client_not_reading, engine_failed, server_shutdown. */
      detail: string;
      stats: LiveSessionStats;
    }
  | { type: 'error'; event_id: string; client_event_id?: string; error: LiveError };

export type LiveServerEventType = LiveServerEvent['type'];
