/**
 * Plain data shared by the session core, its ports and every socket dialect.
 * Nothing here knows a wire format: dialects translate to and from these shapes.
 */
import { FRAME_MS, SAMPLE_RATE, type TurnDetectionConfig } from '../engine/engine.port';
import type { AudioFormats } from '../../platform/audio/audio-format';

export type SessionType = 'live' | 'transcription';
export type CloseReason = 'close_requested' | 'expired' | 'connection_lost';
export type OutputEncoding = 'base64' | 'binary';

/** The resolved configuration a session runs with, after a dialect validated the client's request. */
export interface SessionConfig {
  readonly type: SessionType;
  readonly model: string;
  /** `aria` for live sessions, null for transcription sessions (they produce no speech). */
  readonly voice: string | null;
  readonly language: string;
  readonly turnDetection: TurnDetectionConfig | null;
  /** How output audio travels; only the live dialect offers binary. */
  readonly outputEncoding: OutputEncoding;
  /** A conversation session (Realtime `type: "realtime"`): the session asks for each response. */
  readonly conversation?: boolean;
  /** false: the user speaking over a response does not cut it (Realtime `interrupt_response`). */
  readonly interruptResponse?: boolean;
  /** Conversation sessions: Realtime `idle_timeout_ms` as the session starts (the dialect runs it). */
  readonly idleTimeoutMs?: number;
  /** Conversation sessions: false, a finished spoken turn is not answered by itself (Realtime `create_response`). */
  readonly createResponse?: boolean;
  /**
   * The audio formats on a compatible socket's wire (absent: pcm16 both ways). The session itself
   * runs on pcm16 24 kHz: the dialect converts at its edge.
   */
  readonly audioFormats?: AudioFormats;
}

/** What a client may change in a started session before any audio: the engine's settings. */
export interface SessionConfigChanges {
  readonly language?: string;
  /** null: manual turns (utterances end on commit). */
  readonly turnDetection?: TurnDetectionConfig | null;
  /** Not engine settings: they change at any time. */
  readonly interruptResponse?: boolean;
  readonly audioFormats?: AudioFormats;
}

/** A started session as every `started`/`updated`/`closed` event shows it. */
export interface SessionDescriptor {
  readonly id: string;
  readonly config: SessionConfig;
  /** Wall-clock epoch ms; the session timeline's zero for output timing. */
  readonly startedAtMs: number;
  readonly expiresAtMs: number;
}

/** Cumulative billable input: `seconds` is always `frames * 0.08`. */
export interface Usage {
  readonly frames: number;
  readonly seconds: number;
}

/** A refusal or failure reported to the client; never fatal by itself. */
export interface SessionError {
  readonly code: string;
  readonly message: string;
  readonly param: string | null;
  /** The `event_id` of the client event that caused it, when the client sent one. */
  readonly clientEventId?: string;
  /** `server` for failures of ours (engine, storage), `client` for refused requests. */
  readonly origin: 'client' | 'server';
}

/** One batch of metered frames; the store derives an idempotent id from (session, seq). */
/** Text tokens of a conversation's responses, as billed (reported by the upstream, or estimated). */
export interface TextTokens {
  readonly input: number;
  readonly output: number;
}

export interface MeterBatch {
  readonly seq: number;
  readonly frames: number;
  /** The text tokens of the responses that ended since the previous batch; absent: none. */
  readonly tokens?: TextTokens;
}

/** What the output pacer did, folded into the final stats. */
export interface OutputStats {
  readonly framesSent: number;
  readonly framesDropped: number;
  readonly warnings: number;
}

/** Reported on `closed`: enough to explain a session's bill and its audio health. */
export interface SessionStats {
  readonly durationMs: number;
  readonly inputFrames: number;
  readonly mutedFrames: number;
  readonly droppedInputMs: number;
  readonly outputFrames: number;
  readonly outputDroppedFrames: number;
  readonly turns: number;
  readonly responses: number;
  readonly interruptions: number;
  readonly warnings: number;
  readonly errors: number;
}

/** Tunables of one session; defaults in DEFAULT_SESSION_LIMITS. */
export interface SessionLimits {
  /** The session ends with reason `expired` this long after it started. */
  readonly maxSessionMs: number;
  /** Metering happens at least this often, in frames of audio: what a killed instance can lose. */
  readonly meterBatchFrames: number;
  /** In-band usage reports happen this often, in frames (each one after a meter batch, so they agree). */
  readonly usageEventFrames: number;
  /** Input this far ahead of the wall clock draws `input_faster_than_realtime`. */
  readonly inputAheadWarnMs: number;
  /** Input beyond this lead is dropped (`input_dropped`) and not metered. */
  readonly inputAheadMaxMs: number;
  /** A started session that appends no audio for this long ends `expired` (`idle_timeout`); 0: never. */
  readonly idleTimeoutMs: number;
  /** Control messages (all but audio) a socket may send at once, and refilled per second after. */
  readonly controlBurst: number;
  readonly controlPerSecond: number;
  /**
   * Responses a conversation's client may ask for (`response.create`) at once, and per minute after
   * that; past them one is refused (`rate_limit_exceeded`) and the session goes on.
   */
  readonly responseBurst: number;
  readonly responsesPerMinute: number;
}

export const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000; // 48

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessionMs: 120_000,
  // 10 frames = 0.8 s: with the meter's 150 ms wait to share a statement (METER_LINGER_MS), a killed
  // instance loses under 1 s of metered audio per session. bench/results/meter.json has the cost.
  meterBatchFrames: 10,
  // 60 frames = 4.8 s: "at least every 5 s of audio", on a batch boundary (6 batches), so a report
  // never forces a batch of its own.
  usageEventFrames: 60,
  inputAheadWarnMs: 2000,
  inputAheadMaxMs: 5000,
  // 30 s: a session is normally fed audio all along (browsers send silence while muted); half a
  // minute frees a stream held by a forgotten tab well within the minute a waiting project may wait.
  idleTimeoutMs: 30_000,
  // The Agents SDK replays a conversation's history as one item per message at connect, and a live
  // client may toggle mute per turn: 200 at once and 50 a second leaves them room, while a flood of
  // updates or bad frames is cut at the 201st.
  controlBurst: 200,
  controlPerSecond: 50,
  // An agent asks again after each tool call's output: 10 at once and one every 2 s leave it room,
  // while a client looping on response.create makes at most 30 upstream chat requests a minute.
  responseBurst: 10,
  responsesPerMinute: 30,
};

/** Exact for any frame count: integer milliseconds first, then one division. */
export function framesToSeconds(frames: number): number {
  return (frames * FRAME_MS) / 1000;
}

export function usageOf(frames: number): Usage {
  return { frames, seconds: framesToSeconds(frames) };
}

/** For exhaustive switches over discriminated unions. */
export function assertUnreachable(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
