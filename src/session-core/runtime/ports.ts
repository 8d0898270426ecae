/**
 * What the session runtime needs from the outside world. The gateway implements these per
 * connection (the store and meter bound to the connection's project and credential); tests use
 * fakes. Nothing here imports Nest, TypeORM or ws.
 */
import type { ServerEvent } from '../model/session.events';
import type { CloseReason, MeterBatch, SessionConfig, Usage } from '../model/session.types';

export type TimerHandle = unknown;

/** Wall clock and timers, injected so the core runs under a fake clock in tests. */
export interface ClockPort {
  /** Epoch milliseconds. */
  now(): number;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** The socket as the core sees it. */
export interface TransportPort {
  /** A string goes out as a text frame, a Buffer as a binary frame. */
  send(frame: string | Buffer): void;
  /** Ends the socket after everything sent so far (for 1008, terminating at once is fine too). */
  close(code: number, reason: string): void;
  /** Bytes handed to send() that the socket has not written yet (ws: `bufferedAmount`). */
  readonly bufferedAmount: number;
}

/** One or more frames for one event, sent in order (a Realtime VAD stop is `speech_stopped` + `committed`). */
export type RenderedFrames = string | Buffer | readonly (string | Buffer)[];

/** The outbound half of a dialect: null for events the dialect does not show (e.g. commit acks). */
export interface EventRenderer {
  render(event: ServerEvent): RenderedFrames | null;
}

export interface SessionActivation {
  readonly config: SessionConfig;
  readonly startedAtMs: number;
  readonly expiresAtMs: number;
}

/** A refusal is answered to the client as an `error` event with this code (e.g. concurrency_limit_exceeded). */
export type ActivationResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly param?: string | null };

export interface SessionClosing {
  readonly reason: CloseReason;
  readonly detail: string;
  readonly endedAtMs: number;
  /** Equals the sum of the session's meter batches. */
  readonly usage: Usage;
}

export interface SessionStorePort {
  /**
   * Moves the session to `active` (a client secret's pending row) or creates it active (API key,
   * counted against the project's limits). Called once the engine stream is open.
   */
  activate(sessionId: string, activation: SessionActivation): Promise<ActivationResult>;
  /** Records the end; called exactly once per activated session, after its last meter batch. */
  close(sessionId: string, closing: SessionClosing): Promise<void>;
  /**
   * Records a configuration changed by an update before any audio (the engine stream was reopened
   * with it). Optional: a failure is logged and the session runs on with the new configuration.
   */
  reconfigure?(sessionId: string, config: SessionConfig): Promise<void>;
}

export interface MeterPort {
  /**
   * Persists one batch. Must be idempotent on (sessionId, batch.seq), e.g. id `mev_<session>_<seq>`:
   * the runtime retries a failed write with the same seq. Calls never overlap for one session.
   */
  record(sessionId: string, batch: MeterBatch): Promise<void>;
}

export interface LoggerPort {
  warn(message: string): void;
  error(message: string): void;
}

/** Real time for production. */
export const systemClock: ClockPort = {
  now: () => Date.now(),
  setTimer: (callback, delayMs) => setTimeout(callback, Math.max(0, delayMs)),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
