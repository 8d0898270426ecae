/**
 * Messages between the service and its batch recognition process (advanced serialization: Buffers
 * cross as bytes, not JSON arrays). One stream id per engine stream opened in the child.
 */
import type { EngineEvent, EngineStreamConfig } from '../../../session-core';

export type ToWorker =
  | { t: 'open'; id: number; config: EngineStreamConfig }
  /** Whole frames, concatenated: the child cuts them again. */
  | { t: 'audio'; id: number; pcm: Buffer }
  | { t: 'commit'; id: number }
  | { t: 'clear'; id: number }
  | { t: 'close'; id: number };

export type FromWorker =
  | { t: 'ready'; nice: number }
  | { t: 'opened'; id: number }
  | { t: 'open_failed'; id: number; capacity: boolean; retryAfterMs: number; message: string }
  | { t: 'event'; id: number; event: EngineEvent }
  | { t: 'closed'; id: number };

/** What the child is started with (its argv[2], as JSON). */
export interface WorkerOptions {
  maxStreams: number;
  /** The OS priority the child gives itself before anything runs on its threads (0 to 19). */
  nice: number;
}
