/**
 * The input side of a started session: rate guard, re-framing, mute, metering. Every frame it
 * accepts is counted once and goes to exactly one meter batch, so the in-band usage and the sum
 * of the stored batches agree by construction. A conversation's text tokens are metered here too,
 * in the same sequence of batches.
 */
import { FRAME_BYTES } from '../engine/engine.port';
import type { Effect } from '../model/session.effects';
import type { WarningCode } from '../model/session.events';
import { InputFramer } from '../runtime/input-framer';
import { InputRateGuard } from '../runtime/input-rate';
import { usageOf, type SessionLimits, type TextTokens, type Usage } from '../model/session.types';

export type InputWarning = Exclude<WarningCode, 'output_audio_dropped'>;

/** What the muted session feeds the engine: shared and never written. */
const SILENCE = Buffer.alloc(FRAME_BYTES);

const WARNING_TEXT: Readonly<Record<InputWarning, string>> = {
  audio_while_muted: 'input audio arrives while muted: it is metered, and the model hears silence',
  input_faster_than_realtime: 'input audio is arriving faster than real time',
  input_dropped: 'input audio ran too far ahead of real time: the excess was dropped and not metered',
  partial_frame:
    'appends are re-framed into 80 ms frames (3840 bytes); a final partial frame is metered as a whole frame',
};

export class InputAudio {
  private readonly framer = new InputFramer();
  private readonly rate: InputRateGuard;
  private readonly scratch: Buffer[] = [];
  private frames = 0;
  private meteredFrames = 0;
  private reportedFrames = 0;
  private meterSeq = 0;
  private muted = false;
  private warnedMuted = false;
  private warnedPartial = false;
  /** Frames since the last commit, clear or end of speech: an empty commit is refused. */
  framesSinceCommit = 0;
  mutedFrames = 0;
  warnings = 0;

  constructor(private readonly limits: SessionLimits) {
    this.rate = new InputRateGuard(limits.inputAheadWarnMs, limits.inputAheadMaxMs);
  }

  get usage(): Usage {
    return usageOf(this.frames);
  }

  /** Whether any audio was accepted yet (a partial frame counts): the engine has heard something. */
  get heard(): boolean {
    return this.frames > 0 || this.framer.carried > 0;
  }

  get droppedMs(): number {
    return this.rate.droppedMs;
  }

  mute(): void {
    if (!this.muted) this.warnedMuted = false;
    this.muted = true;
  }

  unmute(): void {
    this.muted = false;
  }

  /** `bytes` has an even, non-zero length. */
  append(bytes: Buffer, nowMs: number, out: Effect[]): void {
    if (this.muted && !this.warnedMuted) {
      this.warnedMuted = true;
      this.warn(out, 'audio_while_muted');
    }
    const admitted = this.rate.admit(bytes.length, nowMs);
    if (this.rate.aheadWarning) this.warn(out, 'input_faster_than_realtime');
    if (this.rate.dropWarning) this.warn(out, 'input_dropped');
    if (admitted === 0) return;
    const frames = this.scratch;
    this.framer.append(admitted === bytes.length ? bytes : bytes.subarray(0, admitted), frames);
    if (!this.warnedPartial && this.framer.carried > 0) {
      this.warnedPartial = true;
      this.warn(out, 'partial_frame');
    }
    for (let i = 0; i < frames.length; i++) this.accept(frames[i], out);
    frames.length = 0;
  }

  /** A response's text tokens: metered at once, in one batch with the frames not metered yet. */
  meterText(tokens: TextTokens, out: Effect[]): void {
    const frames = this.frames - this.meteredFrames;
    this.meteredFrames = this.frames;
    out.push({ kind: 'meter', batch: { seq: ++this.meterSeq, frames, tokens } });
  }

  /** Closing: the final partial frame counts as one frame, and the last batch is metered. */
  finish(out: Effect[]): void {
    const tail = this.framer.takeRemainder();
    if (tail !== null) this.accept(tail, out);
    this.flushMeter(out);
  }

  private accept(frame: Buffer, out: Effect[]): void {
    this.frames++;
    this.framesSinceCommit++;
    if (this.muted) {
      this.mutedFrames++;
      out.push({
        kind: 'engine_push',
        frame: frame.length === FRAME_BYTES ? SILENCE : SILENCE.subarray(0, frame.length),
      });
    } else {
      out.push({ kind: 'engine_push', frame });
    }
    if (this.frames - this.reportedFrames >= this.limits.usageEventFrames) {
      // The report follows a batch, so what it says has been handed to the meter.
      this.flushMeter(out);
      this.reportedFrames = this.frames;
      out.push({ kind: 'emit', event: { type: 'usage', usage: this.usage } });
    } else if (this.frames - this.meteredFrames >= this.limits.meterBatchFrames) {
      this.flushMeter(out);
    }
  }

  private flushMeter(out: Effect[]): void {
    const pending = this.frames - this.meteredFrames;
    if (pending === 0) return;
    this.meteredFrames = this.frames;
    out.push({ kind: 'meter', batch: { seq: ++this.meterSeq, frames: pending } });
  }

  private warn(out: Effect[], code: InputWarning): void {
    this.warnings++;
    out.push({ kind: 'emit', event: { type: 'warning', code, message: WARNING_TEXT[code] } });
  }
}
