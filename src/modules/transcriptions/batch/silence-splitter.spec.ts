import { splitAtSilences } from './silence-splitter';

/** A loudness profile: loud everywhere but at the given silent windows. */
function profile(windows: number, quiet: Array<[number, number]>): Float32Array {
  const p = new Float32Array(windows).fill(1e6);
  for (const [from, to] of quiet) p.fill(0, from, to);
  return p;
}

describe('splitAtSilences', () => {
  const options = { minWindows: 800, maxWindows: 6000 };

  it('keeps a short file whole', () => {
    expect(splitAtSilences(profile(500, []), { ...options, parts: 4 })).toEqual([{ from: 0, to: 500 }]);
  });

  it('cuts in the silence nearest each even target, covering the file without gaps', () => {
    // 40 s, 4 parts: targets at 10, 20, 30 s; pauses at 9.5, 21 and 29 s.
    const p = profile(4000, [
      [950, 990],
      [2100, 2140],
      [2900, 2940],
    ]);
    const pieces = splitAtSilences(p, { ...options, parts: 4 });
    expect(pieces).toHaveLength(4);
    expect(pieces[0].from).toBe(0);
    expect(pieces.at(-1)!.to).toBe(4000);
    for (let i = 1; i < pieces.length; i++) expect(pieces[i].from).toBe(pieces[i - 1].to);
    const cuts = pieces.slice(1).map((piece) => piece.from);
    expect(cuts[0]).toBeGreaterThanOrEqual(950);
    expect(cuts[0]).toBeLessThan(990);
    expect(cuts[1]).toBeGreaterThanOrEqual(2100);
    expect(cuts[1]).toBeLessThan(2140);
    expect(cuts[2]).toBeGreaterThanOrEqual(2900);
    expect(cuts[2]).toBeLessThan(2940);
  });

  it('makes no piece shorter than minWindows however many streams there are', () => {
    const pieces = splitAtSilences(profile(2000, []), { ...options, parts: 8 });
    expect(pieces).toHaveLength(2);
  });

  it('cuts a long file into pieces of at most maxWindows even with one stream', () => {
    const pieces = splitAtSilences(profile(20_000, []), { ...options, parts: 1 });
    expect(pieces.length).toBe(4);
    for (const piece of pieces) expect(piece.to - piece.from).toBeLessThanOrEqual(6000 + 500);
  });
});
