/**
 * The stream's recent input audio, addressed by absolute sample position on the session timeline.
 * Voice activity decisions arrive a little after the audio they describe, and a recognised
 * utterance starts some padding before detected speech, so the recogniser reads from here rather
 * than from the frame that is being pushed.
 */
export class SampleHistory {
  private chunks: Int16Array[] = [];
  /** Absolute position of chunks[0][0]. */
  private start = 0;
  private total = 0;

  /** Position one past the newest sample (= samples received so far). */
  get end(): number {
    return this.start + this.total;
  }

  append(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.chunks.push(samples);
    this.total += samples.length;
  }

  /** Samples in [from, to), clamped to what is still held. */
  read(from: number, to: number): Int16Array {
    const lo = Math.max(from, this.start);
    const hi = Math.min(to, this.end);
    const out = new Int16Array(Math.max(0, hi - lo));
    let position = this.start;
    for (const chunk of this.chunks) {
      const chunkEnd = position + chunk.length;
      if (chunkEnd > lo && position < hi) {
        const a = Math.max(lo, position) - position;
        const b = Math.min(hi, chunkEnd) - position;
        out.set(chunk.subarray(a, b), Math.max(lo, position) - lo);
      }
      if (chunkEnd >= hi) break;
      position = chunkEnd;
    }
    return out;
  }

  /** Forgets whole chunks that end at or before `position`. */
  discardBefore(position: number): void {
    while (this.chunks.length > 0 && this.start + this.chunks[0].length <= position) {
      const dropped = this.chunks.shift() as Int16Array;
      this.start += dropped.length;
      this.total -= dropped.length;
    }
  }
}
