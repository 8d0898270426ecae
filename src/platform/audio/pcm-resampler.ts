/**
 * Streaming rational resampler for pcm16 (polyphase windowed-sinc FIR): Deepgram clients send at
 * their own sample rate, the session runs at 24 kHz, and remote workers take their own rate. The filter cuts at 90 % of the lower Nyquist
 * frequency (anti-aliasing going down, anti-imaging going up) with a Blackman window spanning 16
 * samples of the lower rate: at most 1 ms of delay (at 8 kHz), so transcript timings need no
 * correction. It runs on every frame of every such session, so the inner loop touches typed arrays
 * only: no allocation per sample, no division per output.
 */
const TAPS_PER_LOWER_RATE_SAMPLE = 16;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

export class PcmResampler {
  private readonly up: number;
  private readonly down: number;
  private readonly taps: number;
  /** phases[p][t]: the prototype's tap p + t·up, scaled for unity gain. */
  private readonly phases: Float64Array[];
  /** The last taps - 1 input samples (oldest first), then the block being resampled. */
  private work: Float64Array;
  /** Where the next output's newest input sample sits in `work`, and which phase it uses. */
  private newest: number;
  private phase = 0;

  constructor(inRate: number, outRate: number) {
    const divisor = gcd(inRate, outRate);
    this.up = outRate / divisor;
    this.down = inRate / divisor;
    // A multiple of 4, for the unrolled inner loop.
    this.taps = Math.ceil((TAPS_PER_LOWER_RATE_SAMPLE * Math.max(this.up, this.down)) / this.up / 4) * 4;
    this.work = new Float64Array(this.taps - 1 + 4096);
    this.newest = this.taps - 1;
    const length = this.up * this.taps;
    const centre = (length - 1) / 2;
    const cutoff = 0.45 / Math.max(this.up, this.down); // cycles per upsampled sample
    const prototype = new Float64Array(length);
    let sum = 0;
    for (let i = 0; i < length; i++) {
      const x = i - centre;
      const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
      const window =
        0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (length - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (length - 1));
      prototype[i] = sinc * window;
      sum += prototype[i];
    }
    // Unity gain at DC once the zeros of the upsampling are filled in.
    const gain = this.up / sum;
    this.phases = Array.from({ length: this.up }, (_, p) =>
      Float64Array.from({ length: this.taps }, (_, t) => prototype[p + t * this.up] * gain),
    );
  }

  /** Resamples the next block (little-endian pcm16, whole samples) and returns what is ready. */
  process(input: Buffer): Buffer {
    const keep = this.taps - 1;
    const count = input.length >> 1;
    const end = keep + count;
    if (this.work.length < end) {
      const grown = new Float64Array(end);
      grown.set(this.work.subarray(0, keep));
      this.work = grown;
    }
    const work = this.work;
    if (LITTLE_ENDIAN && input.byteOffset % 2 === 0) {
      const samples = new Int16Array(input.buffer, input.byteOffset, count);
      for (let i = 0; i < count; i++) work[keep + i] = samples[i];
    } else {
      for (let i = 0; i < count; i++) work[keep + i] = input.readInt16LE(i * 2);
    }
    const out = new Int16Array(Math.ceil((count * this.up) / this.down) + 1);
    const { up, down, phases } = this;
    let written = 0;
    let newest = this.newest;
    let phase = this.phase;
    while (newest < end) {
      const taps = phases[phase];
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      for (let t = 0, at = newest; t < taps.length; t += 4, at -= 4) {
        a += taps[t] * work[at];
        b += taps[t + 1] * work[at - 1];
        c += taps[t + 2] * work[at - 2];
        d += taps[t + 3] * work[at - 3];
      }
      const acc = a + b + c + d;
      const sample = acc >= 0 ? (acc + 0.5) | 0 : (acc - 0.5) | 0;
      out[written++] = sample > 32767 ? 32767 : sample < -32768 ? -32768 : sample;
      phase += down;
      while (phase >= up) {
        phase -= up;
        newest++;
      }
    }
    // The block's last samples become the next block's history.
    work.copyWithin(0, count, end);
    this.newest = newest - count;
    this.phase = phase;
    if (LITTLE_ENDIAN) return Buffer.from(out.buffer, 0, written * 2);
    const bytes = Buffer.allocUnsafe(written * 2);
    for (let i = 0; i < written; i++) bytes.writeInt16LE(out[i], i * 2);
    return bytes;
  }
}
