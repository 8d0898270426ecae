/**
 * Where a file is cut so that its pieces can be recognised at once on several engine streams: near
 * evenly spaced targets, in the quietest 300 ms around each, so that a cut falls between words, not
 * through one. Pure: reads the decoder's loudness profile (mean square per 10 ms window).
 */

export interface Piece {
  /** First 10 ms window of the piece (inclusive). */
  from: number;
  /** Window one past its end. */
  to: number;
}

export interface SplitOptions {
  /** Pieces wanted (the engine streams the file may use); fewer when the file is short. */
  parts: number;
  /** No piece shorter than this (windows): short pieces cost a stream open each and lose context. */
  minWindows: number;
  /** No piece longer than this (windows), however few streams: a piece is one stream's work. */
  maxWindows: number;
}

/** 300 ms: longer than the gap inside most words, shorter than most pauses between sentences. */
const QUIET_RUN = 30;

export const SPLIT_DEFAULTS: Omit<SplitOptions, 'parts'> = { minWindows: 800, maxWindows: 6000 };

export function splitAtSilences(profile: Float32Array, options: SplitOptions): Piece[] {
  const total = profile.length;
  const byStreams = Math.max(1, Math.min(options.parts, Math.floor(total / options.minWindows)));
  const count = Math.max(byStreams, Math.ceil(total / options.maxWindows));
  if (count <= 1) return [{ from: 0, to: total }];
  const step = total / count;
  const reach = Math.floor(Math.min(step / 3, 500)); // look up to 5 s either side of a target
  const cuts: number[] = [];
  let previous = 0;
  for (let i = 1; i < count; i++) {
    const target = Math.round(step * i);
    const lo = Math.max(previous + QUIET_RUN, target - reach);
    const hi = Math.min(total - QUIET_RUN, target + reach);
    if (hi <= lo) continue;
    const cut = quietestRunMiddle(profile, lo, hi);
    cuts.push(cut);
    previous = cut;
  }
  const pieces: Piece[] = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push({ from, to: cut });
    from = cut;
  }
  pieces.push({ from, to: total });
  return pieces;
}

/** The middle of the quietest QUIET_RUN windows that start in [lo, hi). */
function quietestRunMiddle(profile: Float32Array, lo: number, hi: number): number {
  let sum = 0;
  for (let i = lo; i < lo + QUIET_RUN; i++) sum += profile[i];
  let best = sum;
  let bestStart = lo;
  for (let start = lo + 1; start < hi; start++) {
    sum += profile[start + QUIET_RUN - 1] - profile[start - 1];
    // On equal quiet (digital silence) the earliest run wins.
    if (sum < best) {
      best = sum;
      bestStart = start;
    }
  }
  return bestStart + Math.floor(QUIET_RUN / 2);
}
