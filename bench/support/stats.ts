/** Summary statistics for latency samples. */

export interface Distribution {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

const EMPTY: Distribution = { count: 0, p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };

/** Nearest-rank percentiles, rounded to 0.1 (ms, say). Sorts a copy. */
export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return EMPTY;
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    p50: tenth(at(0.5)),
    p90: tenth(at(0.9)),
    p99: tenth(at(0.99)),
    max: tenth(sorted[sorted.length - 1]),
    mean: tenth(sum / sorted.length),
  };
}

function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}
