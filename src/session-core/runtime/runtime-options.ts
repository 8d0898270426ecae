/** How the gateway configures a session runtime. */
import type { SpeechEngine } from '../engine/engine.port';
import type { ClockPort, EventRenderer, LoggerPort, MeterPort, SessionStorePort, TransportPort } from './ports';
import type { SessionLimits } from '../model/session.types';

export interface RuntimeTuning {
  /** Past this unsent backlog the session ends (`connection_lost`, detail `client_not_reading`). */
  readonly hardBacklogBytes: number;
  /** Past this unsent backlog output audio is dropped (`output_audio_dropped`). */
  readonly softBacklogBytes: number;
  /** How far ahead of its play time an output frame is sent. */
  readonly outputLeadMs: number;
  readonly maxQueuedOutputMs: number;
  /** Client events held while a start is in flight; beyond it they are refused. */
  readonly maxHeldEvents: number;
  readonly engineCloseTimeoutMs: number;
  /** Waits between attempts of a failed meter write (same seq: the write is idempotent). */
  readonly meterRetryDelaysMs: readonly number[];
}

export const DEFAULT_RUNTIME_TUNING: RuntimeTuning = {
  // 4 MiB: only non-audio events can pile up this far, since audio stops at the soft cap.
  hardBacklogBytes: 4 * 1024 * 1024,
  // 256 KiB: about 4 s of base64 output audio; 500 stalled clients hold at most ~128 MiB.
  softBacklogBytes: 256 * 1024,
  // One frame of slack for the client's jitter buffer; with the frame playing, barge-in stops
  // output within 160 ms of the flush.
  outputLeadMs: 80,
  maxQueuedOutputMs: 30_000,
  maxHeldEvents: 256,
  engineCloseTimeoutMs: 3000,
  meterRetryDelaysMs: [100, 500, 2000],
};

export interface SessionRuntimeOptions {
  /** Chosen by the gateway before the start (`sess_…`), so the engine and the row share it. */
  readonly sessionId: string;
  readonly engine: SpeechEngine;
  readonly store: SessionStorePort;
  readonly meter: MeterPort;
  readonly transport: TransportPort;
  readonly renderer: EventRenderer;
  readonly clock?: ClockPort;
  readonly logger?: LoggerPort;
  readonly limits?: Partial<SessionLimits>;
  readonly tuning?: Partial<RuntimeTuning>;
  /**
   * The session begins to end, whatever ends it (the transport may be gone already): the dialect's
   * last work, while the engine stream is still open. What it meters then (`meterText`) is written
   * before the session is recorded closed.
   */
  readonly onEnding?: () => void;
}
