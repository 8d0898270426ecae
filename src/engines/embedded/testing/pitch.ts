/**
 * Pitch (F0) of short windows of speech, by YIN (de Cheveigné & Kawahara 2002): the cumulative-mean
 * normalised difference function, its first dip below a threshold, refined by parabolic
 * interpolation. Pure and deterministic: the same samples give the same estimate.
 *
 * The 24 kHz session audio is halved to 12 kHz (pair averages, a gentle low-pass) before the search:
 * speech F0 (60–450 Hz) needs no more, and it quarters the cost.
 */

export interface PitchEstimate {
  /** Fundamental frequency in Hz, or null where the window is not periodic enough (unvoiced, silence). */
  f0Hz: number | null;
  /** YIN's aperiodicity at the chosen lag (0 = perfectly periodic, 1 = noise). */
  aperiodicity: number;
  /** Root mean square of the window (int16 units). */
  rms: number;
}

export interface PitchOptions {
  sampleRate: number;
  minHz?: number;
  maxHz?: number;
  /** Dip of the normalised difference that counts as periodic (YIN's absolute threshold). */
  threshold?: number;
}

const DEFAULT_MIN_HZ = 60;
const DEFAULT_MAX_HZ = 450;
const DEFAULT_THRESHOLD = 0.2;

/**
 * The F0 of `samples` (a window of at least 2 × sampleRate / minHz samples gives every lag its full
 * integration window; a shorter one searches only the lags it can hold).
 */
export function estimatePitch(samples: ArrayLike<number>, options: PitchOptions): PitchEstimate {
  const decimate = options.sampleRate >= 20_000 ? 2 : 1;
  const rate = options.sampleRate / decimate;
  const n = Math.floor(samples.length / decimate);
  const x = new Float64Array(n);
  let energy = 0;
  for (let i = 0; i < n; i++) {
    let v = 0;
    for (let k = 0; k < decimate; k++) v += samples[i * decimate + k];
    x[i] = v / decimate;
  }
  for (let i = 0; i < samples.length; i++) energy += samples[i] * samples[i];
  const rms = samples.length > 0 ? Math.sqrt(energy / samples.length) : 0;
  const minLag = Math.max(2, Math.floor(rate / (options.maxHz ?? DEFAULT_MAX_HZ)));
  const wantedMaxLag = Math.ceil(rate / (options.minHz ?? DEFAULT_MIN_HZ));
  // The integration window: as long as the longest lag, or what the samples allow.
  const maxLag = Math.min(wantedMaxLag, Math.floor(n / 2));
  const window = n - maxLag;
  if (maxLag <= minLag + 2 || rms === 0) return { f0Hz: null, aperiodicity: 1, rms };

  const diff = new Float64Array(maxLag + 2);
  for (let lag = 1; lag <= maxLag + 1 && lag < n; lag++) {
    let sum = 0;
    const limit = Math.min(window, n - lag);
    for (let i = 0; i < limit; i++) {
      const d = x[i] - x[i + lag];
      sum += d * d;
    }
    diff[lag] = sum;
  }
  // Cumulative-mean normalised difference.
  const cmnd = new Float64Array(maxLag + 2);
  cmnd[0] = 1;
  let running = 0;
  for (let lag = 1; lag <= maxLag + 1; lag++) {
    running += diff[lag];
    cmnd[lag] = running > 0 ? (diff[lag] * lag) / running : 1;
  }
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  let chosen = -1;
  for (let lag = minLag; lag <= maxLag; lag++) {
    if (cmnd[lag] < threshold) {
      while (lag + 1 <= maxLag && cmnd[lag + 1] < cmnd[lag]) lag++;
      chosen = lag;
      break;
    }
  }
  if (chosen < 0) {
    let best = minLag;
    for (let lag = minLag; lag <= maxLag; lag++) if (cmnd[lag] < cmnd[best]) best = lag;
    return { f0Hz: null, aperiodicity: Math.min(1, cmnd[best]), rms };
  }
  // Parabolic interpolation around the dip.
  const a = cmnd[chosen - 1];
  const b = cmnd[chosen];
  const c = chosen + 1 <= maxLag + 1 ? cmnd[chosen + 1] : b;
  const denominator = a - 2 * b + c;
  const shift = denominator > 0 ? Math.max(-0.5, Math.min(0.5, (a - c) / (2 * denominator))) : 0;
  return { f0Hz: rate / (chosen + shift), aperiodicity: Math.max(0, b), rms };
}

/** Semitones of `hz` above `referenceHz`. */
export function semitones(hz: number, referenceHz: number): number {
  return 12 * Math.log2(hz / referenceHz);
}
