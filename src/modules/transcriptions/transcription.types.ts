import type { TranscriptSegment } from './batch/batch-transcriber';

export type { TranscriptSegment };

/** One file's transcript, as every renderer reads it. */
export interface TranscriptResult {
  /** The batch session's id (Deepgram's `request_id`). */
  sessionId: string;
  model: string;
  /** The language asked for (`auto` when none was). */
  language: string;
  durationMs: number;
  /** What the session was billed for: whole 80 ms frames, as every usage view counts them. */
  billedSeconds: number;
  channels: number;
  sha256: string;
  createdAt: Date;
  segments: TranscriptSegment[];
}
