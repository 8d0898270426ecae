/**
 * The boundary between a session and whatever turns audio into text and text into audio.
 * Every socket dialect drives an engine stream through this interface only, so the embedded
 * engine, the deterministic test engine and a future remote engine are interchangeable.
 */

/** Audio facts shared by every session: mono pcm16 little-endian, 24 kHz, 80 ms frames. */
export const SAMPLE_RATE = 24_000;
export const FRAME_MS = 80;
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000; // 1920
export const FRAME_BYTES = FRAME_SAMPLES * 2; // 3840

export interface TurnDetectionConfig {
  type: 'server_vad';
  /** Speech probability above which a frame counts as speech (0..1). */
  threshold: number;
  /** Silence that ends a user turn, in ms. */
  silenceDurationMs: number;
  /** Audio kept before detected speech start, in ms. */
  prefixPaddingMs: number;
  /**
   * Set: the session decides when a turn ends (end-of-turn confidence, see
   * src/session-core/end-of-turn); the engine then reports `turn_progress` and does not end turns on
   * its silence timer, and the session calls commit(). Absent or null: `silenceDurationMs` ends turns
   * inside the engine. Engines that cannot report progress may ignore it and end turns themselves.
   */
  endOfTurn?: EndOfTurnSettings | null;
}

export interface EndOfTurnSettings {
  /** End-of-turn confidence (0..1) at which a turn ends; 1 ends turns only on commit or timeout. */
  eotThreshold: number;
  /** Lower confidence at which an eager end of turn is announced; null: none. */
  eagerEotThreshold: number | null;
  /** Silence after which a turn ends whatever the confidence. */
  eotTimeoutMs: number;
}

export interface EngineStreamConfig {
  sessionId: string;
  type: 'live' | 'transcription';
  model: string;
  /** `auto` or a language tag; the embedded engine recognises English only. */
  language: string;
  /** `aria` for live sessions, null for transcription. */
  voice: string | null;
  /** null: utterances end only on commit() (manual turns). */
  turnDetection: TurnDetectionConfig | null;
}

/** Offsets are integer milliseconds on the session's input-audio timeline. */
export type EngineEvent =
  | { type: 'speech_started'; itemId: string; audioStartMs: number }
  | { type: 'speech_stopped'; itemId: string; audioEndMs: number }
  /**
   * Speech may be starting (optional for engines): the session stops sending its response's audio
   * until speech_started (a barge-in) or speech_ruled_out, so that a barge-in is not as late as
   * the confirmation of the onset.
   */
  | { type: 'speech_suspected' }
  | { type: 'speech_ruled_out' }
  /**
   * Where an open turn stands (only with `turnDetection.endOfTurn`), at least every ~100 ms of audio:
   * `audioMs` is how far the engine has judged the audio, `silenceMs` the silence since the last
   * voiced sample (0 while voiced), `hypothesis` the whole turn's text so far, unstable words included,
   * `hypothesisMs` (optional) how far into the audio the recogniser had heard when it formed it, and
   * `hypothesisFinal` (optional) whether its words are the recogniser's final ones (no partial left).
   */
  | {
      type: 'turn_progress';
      itemId: string;
      audioMs: number;
      silenceMs: number;
      hypothesis: string;
      hypothesisMs?: number;
      hypothesisFinal?: boolean;
    }
  | {
      type: 'input_transcript';
      itemId: string;
      /** Text added since the previous delta of this item (may be empty on the final one). */
      delta: string;
      startMs: number;
      endMs: number;
      /** true once the item's transcript is final; `transcript` is then the whole text. */
      done: boolean;
      transcript?: string;
      confidence?: number;
      words?: EngineWord[];
    }
  | { type: 'response_started'; itemId: string }
  | {
      type: 'output_transcript';
      itemId: string;
      delta: string;
      /** Offset of the words within the response's audio, in ms. */
      startMs: number;
      endMs: number;
      done: boolean;
      transcript?: string;
    }
  /** A chunk of the response's speech: pcm16 24 kHz, any whole number of samples. */
  | { type: 'output_audio'; itemId: string; pcm: Buffer }
  | { type: 'response_done'; itemId: string; interrupted: boolean }
  /** `fatal`: the stream cannot go on (e.g. no worker left); the session ends as engine_unavailable. */
  | { type: 'error'; code: string; message: string; fatal?: boolean };

export interface EngineWord {
  word: string;
  startMs: number;
  endMs: number;
  confidence: number;
}

export type EngineEventSink = (event: EngineEvent) => void;

export interface EngineStream {
  /** Feeds one frame of pcm16 24 kHz (FRAME_BYTES, or fewer for the final partial frame). */
  pushAudio(frame: Buffer): void;
  /** Ends the current utterance now: the final transcript follows (manual commit, Finalize). */
  commit(): void;
  /** Drops audio that has not produced a final transcript yet. */
  clear(): void;
  /** The client started speaking over the response: stop producing output audio. */
  interrupt(): void;
  /** Flushes what was heard (final transcripts are still delivered) and releases the stream. */
  close(): Promise<void>;
  /**
   * The user has probably finished saying `transcript` (an eager end of turn): a live engine may
   * start preparing its answer now, to play it when the turn ends. Optional.
   */
  prepareResponse?(transcript: string): void;
  /** The user went on speaking after prepareResponse(): throw the prepared answer away. Optional. */
  discardPreparedResponse?(): void;
}

export interface EngineCapacity {
  inUse: number;
  max: number;
}

export interface SpeechEngine {
  readonly name: string;
  /** Throws EngineCapacityError when no stream can be opened. */
  open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream>;
  /** Loads models ahead of the first session (optional: engines without a warm-up start lazily). */
  start?(): Promise<void>;
  capacity(): EngineCapacity;
  /** Reserves a stream slot ahead of open() (secret creation); false when none is free. */
  hasCapacity(): boolean;
  shutdown(): Promise<void>;
}

export const SPEECH_ENGINE = Symbol('SPEECH_ENGINE');

export class EngineCapacityError extends Error {
  constructor(readonly retryAfterMs: number) {
    super('no speech engine capacity');
  }
}
