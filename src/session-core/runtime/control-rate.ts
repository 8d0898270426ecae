/**
 * A token bucket for one socket's control messages (everything but input audio, which the input-rate
 * guard bounds by the clock). Refilled lazily from the clock on each take, so an idle socket costs nothing.
 */
export class ControlRate {
  private tokens: number;
  private refilledAtMs: number;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    nowMs: number,
  ) {
    this.tokens = burst;
    this.refilledAtMs = nowMs;
  }

  /** What is left now, and the seconds until the bucket is full again (for a dialect that reports it). */
  allowance(nowMs: number): { limit: number; remaining: number; resetSeconds: number } {
    const tokens = Math.min(this.burst, this.tokens + (Math.max(0, nowMs - this.refilledAtMs) * this.perSecond) / 1000);
    return { limit: this.burst, remaining: Math.floor(tokens), resetSeconds: (this.burst - tokens) / this.perSecond };
  }

  /** False once the client has spent its burst faster than the rate refills it. */
  take(nowMs: number): boolean {
    const elapsedMs = nowMs - this.refilledAtMs;
    if (elapsedMs > 0) {
      this.tokens = Math.min(this.burst, this.tokens + (elapsedMs * this.perSecond) / 1000);
      this.refilledAtMs = nowMs;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
