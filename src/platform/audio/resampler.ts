/**
 * Streaming rational resampler (polyphase FIR, Kaiser-windowed sinc). Used for 24 kHz session audio
 * → 16 kHz for the VAD, and flite's 16 kHz speech → 24 kHz for the session. With 32 taps per phase
 * the stopband is more than 60 dB down from about 1.2 × the lower Nyquist frequency, and the delay
 * is under 1 ms, so stream timings need no correction.
 */

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

export interface ResamplerOptions {
  /** Taps per polyphase branch; the prototype filter has `up * tapsPerPhase` taps. */
  tapsPerPhase?: number;
  /** Kaiser window shape; 8 gives about 80 dB stopband attenuation once past the transition band. */
  kaiserBeta?: number;
  /** Passband edge as a fraction of the lower Nyquist frequency. */
  cutoff?: number;
}

export class Resampler {
  readonly up: number;
  readonly down: number;
  private readonly taps: number;
  /** phases[p][k] = prototype[p + k * up] * up, so one output is a short dot product. */
  private readonly phases: Float64Array[];
  /** The last `taps - 1` input samples, newest last, then room for the next block. */
  private history: Float64Array;
  /** Absolute index (in inputs) of history[0]. */
  private historyStart: number;
  private inputCount = 0;
  private outputCount = 0;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
    options: ResamplerOptions = {},
  ) {
    const divisor = gcd(inRate, outRate);
    this.up = outRate / divisor;
    this.down = inRate / divisor;
    this.taps = options.tapsPerPhase ?? 32;
    const beta = options.kaiserBeta ?? 8;
    const cutoff = (options.cutoff ?? 0.92) / Math.max(this.up, this.down); // of the upsampled Nyquist
    const length = this.up * this.taps;
    const centre = (length - 1) / 2;
    const norm = besselI0(beta);
    this.phases = Array.from({ length: this.up }, () => new Float64Array(this.taps));
    for (let n = 0; n < length; n++) {
      const t = n - centre;
      const sinc = t === 0 ? 1 : Math.sin(Math.PI * cutoff * t) / (Math.PI * cutoff * t);
      const ratio = (2 * n) / (length - 1) - 1;
      const window = besselI0(beta * Math.sqrt(Math.max(0, 1 - ratio * ratio))) / norm;
      this.phases[n % this.up][Math.floor(n / this.up)] = cutoff * sinc * window * this.up;
    }
    this.history = new Float64Array(this.taps - 1);
    this.historyStart = -(this.taps - 1);
  }

  /** Converts the next block of input; output length follows the exact rate ratio over the stream. */
  process(input: ArrayLike<number>): Float32Array {
    const previous = this.history;
    const buffer = new Float64Array(previous.length + input.length);
    buffer.set(previous);
    for (let i = 0; i < input.length; i++) buffer[previous.length + i] = input[i];
    this.inputCount += input.length;

    // Output n reads inputs up to floor(n * down / up); emit every output whose inputs have arrived,
    // i.e. every n with n * down / up < inputCount.
    const lastOutput = Math.ceil((this.inputCount * this.up) / this.down) - 1;
    const count = Math.max(0, lastOutput - this.outputCount + 1);
    const out = new Float32Array(count);
    for (let j = 0; j < count; j++) {
      const n = this.outputCount + j;
      const position = n * this.down;
      const newest = Math.floor(position / this.up) - this.historyStart;
      const coefficients = this.phases[position % this.up];
      let acc = 0;
      for (let k = 0; k < this.taps; k++) acc += coefficients[k] * buffer[newest - k];
      out[j] = acc;
    }
    this.outputCount += count;

    const keep = this.taps - 1;
    this.history = buffer.slice(buffer.length - keep);
    this.historyStart += buffer.length - keep;
    return out;
  }

  /** Output samples by which the filter delays the signal (half the prototype's length). */
  get delay(): number {
    return (this.up * this.taps - 1) / 2 / this.down;
  }

  /** Pushes enough silence through to emit what the filter still holds (one-shot conversions). */
  flush(): Float32Array {
    return this.process(new Float64Array(this.taps));
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
