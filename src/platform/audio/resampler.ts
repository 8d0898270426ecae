/**
 * The service's one streaming rational resampler (polyphase FIR, Kaiser-windowed sinc): 24 kHz
 * session audio → 16 kHz for the VAD and for remote workers, flite's speech → 24 kHz, and Deepgram
 * clients' own rates → 24 kHz. With 32 taps per phase the stopband is more than 60 dB down from
 * about 1.2 × the lower Nyquist frequency, and the delay is at most 2 ms (8 kHz in), so stream
 * timings need no correction. It runs on every frame of every session, so the inner loop touches
 * typed arrays only: no allocation per sample, no division per output.
 */
const TAPS_PER_PHASE = 32; // a multiple of 4, for the unrolled inner loop
/** Kaiser window shape: about 80 dB stopband attenuation once past the transition band. */
const KAISER_BETA = 8;
/** Passband edge as a fraction of the lower Nyquist frequency. */
const PASSBAND = 0.92;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Zeroth-order modified Bessel function of the first kind, for the Kaiser window. */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) * (x / (2 * k));
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

export class Resampler {
  private readonly up: number;
  private readonly down: number;
  /** phases[p][t] = prototype[p + t·up] · up, so one output is a short dot product. */
  private readonly phases: Float64Array[];
  /** The last taps - 1 input samples (oldest first), then the block being resampled. */
  private work = new Float64Array(TAPS_PER_PHASE - 1 + 4096);
  /** Outputs of the block being resampled, before they take the caller's type. */
  private out = new Float64Array(4096);
  /** Where the next output's newest input sample sits in `work`, and which phase it uses. */
  private newest = TAPS_PER_PHASE - 1;
  private phase = 0;

  constructor(inRate: number, outRate: number) {
    const divisor = gcd(inRate, outRate);
    this.up = outRate / divisor;
    this.down = inRate / divisor;
    const cutoff = PASSBAND / Math.max(this.up, this.down); // of the upsampled Nyquist
    const length = this.up * TAPS_PER_PHASE;
    const centre = (length - 1) / 2;
    const norm = besselI0(KAISER_BETA);
    this.phases = Array.from({ length: this.up }, () => new Float64Array(TAPS_PER_PHASE));
    for (let n = 0; n < length; n++) {
      const t = n - centre;
      const sinc = t === 0 ? 1 : Math.sin(Math.PI * cutoff * t) / (Math.PI * cutoff * t);
      const ratio = (2 * n) / (length - 1) - 1;
      const window = besselI0(KAISER_BETA * Math.sqrt(Math.max(0, 1 - ratio * ratio))) / norm;
      this.phases[n % this.up][Math.floor(n / this.up)] = cutoff * sinc * window * this.up;
    }
  }

  /** Output samples by which the filter delays the signal (half the prototype's length). */
  get delay(): number {
    return (this.up * TAPS_PER_PHASE - 1) / 2 / this.down;
  }

  /** Resamples the next block of samples (pcm16 scale); output length follows the exact rate ratio. */
  process(input: ArrayLike<number>): Float32Array {
    const work = this.reserve(input.length);
    for (let i = 0; i < input.length; i++) work[TAPS_PER_PHASE - 1 + i] = input[i];
    return new Float32Array(this.out.subarray(0, this.filter(input.length)));
  }

  /** Resamples the next block of little-endian pcm16 (whole samples) into pcm16, rounded and clamped. */
  processPcm16(input: Buffer): Buffer {
    const count = input.length >> 1;
    const work = this.reserve(count);
    if (LITTLE_ENDIAN && input.byteOffset % 2 === 0) {
      work.set(new Int16Array(input.buffer, input.byteOffset, count), TAPS_PER_PHASE - 1);
    } else {
      for (let i = 0; i < count; i++) work[TAPS_PER_PHASE - 1 + i] = input.readInt16LE(i * 2);
    }
    const written = this.filter(count);
    const out = this.out;
    const samples = new Int16Array(written);
    for (let i = 0; i < written; i++) {
      const v = out[i];
      const sample = v >= 0 ? (v + 0.5) | 0 : (v - 0.5) | 0;
      samples[i] = sample > 32767 ? 32767 : sample < -32768 ? -32768 : sample;
    }
    if (LITTLE_ENDIAN) return Buffer.from(samples.buffer, 0, written * 2);
    const bytes = Buffer.allocUnsafe(written * 2);
    for (let i = 0; i < written; i++) bytes.writeInt16LE(samples[i], i * 2);
    return bytes;
  }

  /** Pushes enough silence through to emit what the filter still holds (one-shot conversions). */
  flush(): Float32Array {
    return this.process(new Float64Array(TAPS_PER_PHASE));
  }

  /** Room for `count` new samples after the history; returns the work array to fill. */
  private reserve(count: number): Float64Array {
    const end = TAPS_PER_PHASE - 1 + count;
    if (this.work.length < end) {
      const grown = new Float64Array(end);
      grown.set(this.work.subarray(0, TAPS_PER_PHASE - 1));
      this.work = grown;
    }
    const outputs = Math.ceil((count * this.up) / this.down) + 1;
    if (this.out.length < outputs) this.out = new Float64Array(outputs);
    return this.work;
  }

  /** Filters the `count` samples just placed in `work` into `out`; returns how many outputs are ready. */
  private filter(count: number): number {
    const keep = TAPS_PER_PHASE - 1;
    const end = keep + count;
    const { up, down, phases, work, out } = this;
    let written = 0;
    let newest = this.newest;
    let phase = this.phase;
    while (newest < end) {
      const taps = phases[phase];
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      for (let t = 0, at = newest; t < TAPS_PER_PHASE; t += 4, at -= 4) {
        a += taps[t] * work[at];
        b += taps[t + 1] * work[at - 1];
        c += taps[t + 2] * work[at - 2];
        d += taps[t + 3] * work[at - 3];
      }
      out[written++] = a + b + c + d;
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
    return written;
  }
}

/** pcm16 little-endian bytes → samples (copies, so the caller may reuse its buffer). */
export function pcm16FromBuffer(buffer: Buffer): Int16Array {
  const samples = new Int16Array(buffer.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = buffer.readInt16LE(i * 2);
  return samples;
}

/** Float samples in pcm16 scale → clamped Int16. */
export function toInt16(samples: ArrayLike<number>): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i]);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}

/** Resamples a whole clip: the result has exactly round(length * outRate / inRate) samples. */
export function resampleClip(samples: ArrayLike<number>, inRate: number, outRate: number): Int16Array {
  if (inRate === outRate) return toInt16(samples);
  const resampler = new Resampler(inRate, outRate);
  const body = resampler.process(samples);
  const tail = resampler.flush();
  const joined = new Float32Array(body.length + tail.length);
  joined.set(body);
  joined.set(tail, body.length);
  // The filter delays by half its length; drop that lead so the clip stays aligned in time.
  const delay = Math.round(resampler.delay);
  const length = Math.round((samples.length * outRate) / inRate);
  return toInt16(joined.subarray(delay, delay + length));
}
