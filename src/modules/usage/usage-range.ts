/** A half-open range of Unix seconds: [from, to). */
export interface UsageRange {
  readonly from: number;
  readonly to: number;
}

/**
 * Fills in what the caller left out: `from` defaults to the beginning of time, `to` to just after
 * the current second, so that everything recorded so far is inside. A `from` in the future with no
 * `to` gives an empty range rather than an inverted one.
 */
export function resolveRange(query: { from?: number; to?: number }, nowMs: number = Date.now()): UsageRange {
  const from = query.from ?? 0;
  const to = query.to ?? Math.max(from, Math.floor(nowMs / 1000) + 1);
  return { from, to };
}

/** Seconds of audio in `frames` 80 ms frames, exact in decimal: integer milliseconds first, then one division. */
export function framesToSeconds(frames: number): number {
  return (frames * 80) / 1000;
}
