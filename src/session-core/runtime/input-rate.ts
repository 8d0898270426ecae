/**
 * Detects input sent faster than real time. Accepted audio advances a virtual input clock that
 * never lags the wall clock, so idle time earns no credit for a later burst: the lead is how far
 * the accepted audio runs ahead of "now". Past the warn lead the client is told once per
 * episode; past the hard lead the excess is cut (the latest samples go) and not metered.
 */
import { BYTES_PER_MS } from '../model/session.types';

export class InputRateGuard {
  private clockMs = Number.NEGATIVE_INFINITY;
  private warnedAhead = false;
  private warnedDrop = false;
  private droppedBytesTotal = 0;
  /** Set by the last admit(): the client should hear about it. */
  aheadWarning = false;
  dropWarning = false;

  constructor(
    private readonly warnMs: number,
    private readonly maxMs: number,
  ) {}

  get droppedMs(): number {
    return Math.round(this.droppedBytesTotal / BYTES_PER_MS);
  }

  /** How far accepted input runs ahead of `nowMs`. */
  leadMs(nowMs: number): number {
    return Math.max(0, this.clockMs - nowMs);
  }

  /** Returns how many of `byteLength` bytes (an even number) to accept. */
  admit(byteLength: number, nowMs: number): number {
    this.aheadWarning = false;
    this.dropWarning = false;
    if (this.clockMs < nowMs) this.clockMs = nowMs;
    const lead = this.clockMs - nowMs;
    if (lead <= this.warnMs) {
      // Back within tolerance: the episode is over, the next one is reported again.
      this.warnedAhead = false;
      this.warnedDrop = false;
    }
    const room = Math.max(0, Math.floor(((this.maxMs - lead) * BYTES_PER_MS) / 2) * 2);
    const admitted = Math.min(byteLength, room);
    if (admitted < byteLength) {
      this.droppedBytesTotal += byteLength - admitted;
      if (!this.warnedDrop) this.dropWarning = this.warnedDrop = true;
    }
    this.clockMs += admitted / BYTES_PER_MS;
    if (!this.warnedAhead && this.clockMs - nowMs > this.warnMs) this.aheadWarning = this.warnedAhead = true;
    return admitted;
  }
}
