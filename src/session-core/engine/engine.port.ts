/**
 * The session core's engine port: the boundary between a session and whatever turns audio into text and
 * text into audio. The core owns it; src/engines implements it (each kind, and the registry).
 * Every socket dialect drives an engine stream through this interface only, so the kinds of engine are
 * interchangeable.
 */
import type { TranscriptDelta, TranscriptWord } from '../model/transcript';

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
  /** A conversation session: answer only through respond() (engines with `conversation.responses`). */
  conversation?: boolean;
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
  | (TranscriptDelta & { type: 'input_transcript'; confidence?: number; words?: EngineWord[] })
  | { type: 'response_started'; itemId: string }
  /** Its offsets are the words' within the response's audio, in ms. */
  | (TranscriptDelta & { type: 'output_transcript' })
  /** A chunk of the response's speech: pcm16 24 kHz, any whole number of samples. */
  | { type: 'output_audio'; itemId: string; pcm: Buffer }
  | { type: 'response_done'; itemId: string; interrupted: boolean }
  /** `fatal`: the stream cannot go on (e.g. no worker left); the session ends as engine_unavailable. */
  | { type: 'error'; code: string; message: string; fatal?: boolean };

export type EngineWord = TranscriptWord;

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
  /** Conversation sessions: produce one response (see ResponseRequest). */
  respond?(request: ResponseRequest, sink: ResponseSink): void;
  /** Stops the response now: its voice stops and its sink gets `finished` with `cancelled`. */
  cancelResponse?(responseId: string): void;
}

export interface EngineCapacity {
  inUse: number;
  max: number;
}

export interface SpeechEngine {
  readonly name: string;
  /** What the engine serves in conversation sessions; absent: spoken turns answered by itself only. */
  readonly conversation?: ConversationCapabilities;
  /** Throws EngineCapacityError when no stream can be opened. */
  open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream>;
  /** Loads models ahead of the first session (optional: engines without a warm-up start lazily). */
  start?(): Promise<void>;
  capacity(): EngineCapacity;
  /** Reserves a stream slot ahead of open() (secret creation); false when none is free. */
  hasCapacity(): boolean;
  shutdown(): Promise<void>;
  /**
   * Where batch (file) work opens its transcription streams when the engine keeps it apart from live
   * sessions (the embedded engine: a process of its own at a lower OS priority, with its own streams).
   * Absent: batch work opens streams on this engine, leaving a reserve for live sessions.
   */
  readonly batch?: SpeechEngine;
  /** Whole files go to an upstream as they are (a remote engine's transcription upstream); wins over `batch`. */
  readonly files?: FileTranscriber;
}

/** One file for an engine that takes files whole. */
export interface FileTranscriptionRequest {
  /** The upload on disk, as the client sent it (a headerless one already given a WAV header). */
  path: string;
  bytes: number;
  /** Its media type (`audio/mpeg`) and a file name whose extension agrees (upstreams read either). */
  contentType: string;
  fileName: string;
  /** `auto` or a language tag. */
  language: string;
  prompt: string | null;
  /** The audio's length as decoded here: a transcript's end when the upstream gives no times. */
  durationMs: number;
  signal: AbortSignal;
}

/** Times in ms from the start of the file. */
export interface FileTranscript {
  text: string;
  segments: Array<{ startMs: number; endMs: number; text: string; confidence: number; words: EngineWord[] }>;
}

export interface FileTranscriber {
  /** Files in flight at once, and how many may be. */
  capacity(): EngineCapacity;
  /** Rejects with FileTranscriptionError for what the upstream did; the caller answers for it. */
  transcribe(request: FileTranscriptionRequest): Promise<FileTranscript>;
}

/**
 * A file the upstream did not transcribe: `unavailable` (it failed, refused, or answered what cannot
 * be read), `timeout` (no answer in time), `too_large` (more than it takes). The message is the
 * service's own words: no upstream address, key or body.
 */
export class FileTranscriptionError extends Error {
  constructor(
    readonly reason: 'unavailable' | 'timeout' | 'too_large',
    message: string,
  ) {
    super(message);
    this.name = 'FileTranscriptionError';
  }
}

export const SPEECH_ENGINE = Symbol('SPEECH_ENGINE');

export class EngineCapacityError extends Error {
  constructor(readonly retryAfterMs: number) {
    super('no speech engine capacity');
  }
}

/*
 * Conversation sessions (OpenAI Realtime `type: "realtime"`): the session, not the engine, decides
 * when to answer. The engine stream is opened with `conversation: true`, answers nothing by itself,
 * and produces one response per respond() call. A response's voice travels as the usual
 * response_started / output_audio / output_transcript / response_done events, under the item id
 * the request names; its text, tool calls and end go to the request's own sink.
 */

/** A function the model may call; `parameters` is a JSON Schema object, passed on as given. */
export interface ConversationTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** The conversation as context for one response, oldest first. */
export type ConversationMessage =
  | { role: 'system' | 'user' | 'assistant'; content: string }
  | { role: 'assistant'; content: string; toolCalls: { callId: string; name: string; arguments: string }[] }
  | { role: 'tool'; callId: string; content: string };

export interface ResponseRequest {
  responseId: string;
  /** The id the response's message item (and its audio events) carry. */
  itemId: string;
  instructions: string;
  messages: ConversationMessage[];
  tools: ConversationTool[];
  toolChoice: ToolChoice;
  /** false: text only (no speech is synthesised). */
  audio: boolean;
  /** null: the engine's own limit. */
  maxOutputTokens: number | null;
}

/** Token counts an upstream reported for one response. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export type ResponseEvent =
  /** The answer's text as generated (also for voiced answers: their whole text, before it is spoken). */
  | { type: 'text'; delta: string }
  | { type: 'function_call'; callId: string; name: string; arguments: string }
  | {
      type: 'finished';
      status: 'completed' | 'cancelled' | 'failed' | 'incomplete';
      /** `max_output_tokens` for incomplete; a failure's code for failed. */
      reason: string | null;
      usage: TokenUsage | null;
    };

export type ResponseSink = (event: ResponseEvent) => void;

/** What an engine can do in a conversation session (absent: it answers spoken turns by itself only). */
export interface ConversationCapabilities {
  /** respond() and cancelResponse() are served: the session decides when and how to answer. */
  responses: boolean;
  /** Function tools are passed to the model. */
  tools: boolean;
}
