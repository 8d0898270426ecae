/**
 * Streaming resampler from the audio device's rate to 24 kHz pcm16. Pure (no Web Audio), so the
 * capture worklet and the WAV-file path share it and Node tests can check it.
 * Downsampling first low-passes below the new Nyquist (a Blackman-windowed sinc) so speech above
 * 12 kHz does not fold back; then linear interpolation picks the 24 kHz instants.
 */
const TAPS = 31;

export class StreamingResampler {
  private readonly step: number;
  private readonly kernel: Float32Array | null;
  private readonly history = new Float32Array(TAPS);
  private historyAt = 0;
  /**
   * The previous filtered sample and the next output instant, as a fraction of the way from it to the
   * next input sample (starting at 1: the first output is the first input sample).
   */
  private previous = 0;
  private position = 1;

  constructor(
    readonly inputRate: number,
    readonly outputRate = 24_000,
  ) {
    if (!(inputRate > 0) || !(outputRate > 0)) throw new RangeError('rates must be positive');
    this.step = inputRate / outputRate;
    this.kernel = inputRate > outputRate ? lowPass((0.45 * outputRate) / inputRate) : null;
  }

  /** Float samples (-1..1) at the input rate in; pcm16 samples at the output rate out. */
  process(input: Float32Array): Int16Array {
    const out = new Int16Array(Math.ceil((input.length + 1) / this.step) + 1);
    let count = 0;
    for (let i = 0; i < input.length; i++) {
      const current = this.filter(input[i]);
      // Emit every output instant that falls between the previous input sample and this one.
      while (this.position <= 1) {
        const value = this.previous + (current - this.previous) * this.position;
        out[count++] = toPcm16(value);
        this.position += this.step;
      }
      this.position -= 1;
      this.previous = current;
    }
    return out.subarray(0, count);
  }

  private filter(sample: number): number {
    if (!this.kernel) return sample;
    this.history[this.historyAt] = sample;
    this.historyAt = (this.historyAt + 1) % TAPS;
    let sum = 0;
    for (let k = 0; k < TAPS; k++) sum += this.kernel[k] * this.history[(this.historyAt + k) % TAPS];
    return sum;
  }
}

/** Windowed-sinc low-pass, `cutoff` as a fraction of the input rate, unity gain at DC. */
function lowPass(cutoff: number): Float32Array {
  const kernel = new Float32Array(TAPS);
  const middle = (TAPS - 1) / 2;
  let total = 0;
  for (let i = 0; i < TAPS; i++) {
    const x = i - middle;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    const window =
      0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (TAPS - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (TAPS - 1));
    kernel[i] = sinc * window;
    total += kernel[i];
  }
  for (let i = 0; i < TAPS; i++) kernel[i] /= total;
  return kernel;
}

function toPcm16(value: number): number {
  const clipped = value > 1 ? 1 : value < -1 ? -1 : value;
  return Math.round(clipped < 0 ? clipped * 32768 : clipped * 32767);
}

export function pcm16ToFloat(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i] / 32768;
  return out;
}
