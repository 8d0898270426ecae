/**
 * One user utterance of a remote stream: its audio (kept until its final transcript arrives, so it
 * can be re-sent to another worker) and the transcript events it produced.
 */
import type { EngineEvent } from '../../session-core';

type InputTranscript = Extract<EngineEvent, { type: 'input_transcript' }>;

const SAMPLES_PER_MS = 24;

export class Utterance {
  readonly audio: Buffer[] = [];
  /** Text of the deltas forwarded to the session. */
  private sent = '';
  /** Text the current worker sent for it (restarted when it moves to another worker). */
  private heard = '';
  private lastEndMs: number;
  endMs: number | null = null;
  /** Dropped by clear(): whatever the worker says about it is ignored. */
  discarded = false;

  constructor(
    readonly id: string,
    readonly startMs: number,
  ) {
    this.lastEndMs = startMs;
  }

  get ended(): boolean {
    return this.endMs !== null;
  }

  get audioMs(): number {
    return Math.floor(this.audio.reduce((n, b) => n + b.length, 0) / 2 / SAMPLES_PER_MS);
  }

  /** It moves to another worker, which transcribes it from the start. */
  restart(): void {
    this.heard = '';
  }

  /**
   * A worker delta; forwarded only for text beyond what was already forwarded (a replay on another
   * worker repeats what the first one said). `nowMs`: the stream position it was heard at.
   */
  delta(text: string, nowMs: number): InputTranscript | null {
    this.heard += text;
    if (!this.heard.startsWith(this.sent) || this.heard.length <= this.sent.length) return null;
    const delta = this.heard.slice(this.sent.length);
    this.sent = this.heard;
    const startMs = this.lastEndMs;
    const endMs = Math.max(startMs, Math.min(nowMs, this.endMs ?? nowMs));
    this.lastEndMs = endMs;
    return { type: 'input_transcript', itemId: this.id, delta, startMs, endMs, done: false };
  }

  /** The final transcript; its delta is whatever of it the deltas did not carry. */
  done(text: string): InputTranscript {
    const transcript = text.trim();
    const sentTrimmed = this.sent.trim();
    const delta = transcript.startsWith(sentTrimmed) ? transcript.slice(sentTrimmed.length) : '';
    const endMs = Math.max(this.startMs, this.endMs ?? this.lastEndMs);
    return { type: 'input_transcript', itemId: this.id, delta, startMs: this.startMs, endMs, done: true, transcript };
  }
}
