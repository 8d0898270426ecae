/** Ground truth for latency measurements: where speech really is in a clip, and percentiles. */

/**
 * Start and end (ms) of the part of a 24 kHz clip louder than `relativeDb` below its loudest
 * 10 ms window: the clip's own speech, independent of the engine's VAD.
 */
export function speechSpan(
  samples: Int16Array,
  sampleRate = 24_000,
  relativeDb = -35,
): { startMs: number; endMs: number } {
  const window = Math.round(sampleRate / 100);
  const levels: number[] = [];
  for (let i = 0; i + window <= samples.length; i += window) {
    let sum = 0;
    for (let k = i; k < i + window; k++) sum += samples[k] * samples[k];
    levels.push(Math.sqrt(sum / window));
  }
  const peak = Math.max(1, ...levels);
  const floor = peak * 10 ** (relativeDb / 20);
  const first = levels.findIndex((l) => l >= floor);
  let last = levels.length - 1;
  while (last > 0 && levels[last] < floor) last--;
  if (first < 0) return { startMs: 0, endMs: 0 };
  return { startMs: first * 10, endMs: (last + 1) * 10 };
}

/** Nearest-rank percentile; NaN for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function summarize(values: number[]): { n: number; p50: number; p95: number; max: number } {
  const round = (v: number): number => Math.round(v);
  return {
    n: values.length,
    p50: round(percentile(values, 50)),
    p95: round(percentile(values, 95)),
    max: round(values.length ? Math.max(...values) : Number.NaN),
  };
}
