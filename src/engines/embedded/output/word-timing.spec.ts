import { describe, expect, it } from '@jest/globals';

import { parsePhoneDurations } from '../testing/flite-cli';
import { alignWords, estimatePhoneCount, phonesFromSegments } from './word-timing';

// flite -voice rms -psdur -t "Hello, it is ten past three."
const PSDUR =
  'pau:0.119 hh:0.212 ax:0.261 l:0.396 ow:0.694 pau:0.876 ih:0.960 t:1.052 ih:1.098 z:1.187 t:1.337 eh:1.467 n:1.571 p:1.699 ae:1.757 s:1.898 t:1.963 th:2.166 r:2.253 iy:2.487 pau:2.663';

describe('word timing for synthesised speech', () => {
  it('parses flite phone end times', () => {
    const phones = parsePhoneDurations(`${PSDUR}\n`);
    expect(phones).toHaveLength(21);
    expect(phones[1]).toEqual({ phone: 'hh', startMs: 119, endMs: 212 });
  });

  it("reads the addon's segments as the CLI's line", () => {
    const segments = PSDUR.split(' ').map((token) => {
      const [name, end] = token.split(':');
      // The addon gives flite's float, not the CLI's 3 decimals.
      return { name, endSeconds: Math.fround(Number(end) + 0.0002) };
    });
    expect(phonesFromSegments(segments)).toEqual(parsePhoneDurations(PSDUR));
  });

  it('estimates phone counts from spelling', () => {
    expect(estimatePhoneCount('hello')).toBe(4);
    expect(estimatePhoneCount('three')).toBe(3);
    expect(estimatePhoneCount("o'clock")).toBe(5);
    expect(estimatePhoneCount('—')).toBe(0);
  });

  it('puts each word on real phone boundaries, skipping pauses', () => {
    const words = alignWords('Hello, it is ten past three.', parsePhoneDurations(PSDUR));
    expect(words.map((w) => w.text)).toEqual(['Hello,', 'it', 'is', 'ten', 'past', 'three.']);
    // Exact phone boundaries of the real words: hello 119–694, it 876–1052, is 1052–1187,
    // ten 1187–1571, past 1571–1963, three 1963–2487. The estimate lands within a phone or two.
    const truth = [
      [119, 694],
      [876, 1052],
      [1052, 1187],
      [1187, 1571],
      [1571, 1963],
      [1963, 2487],
    ];
    words.forEach((w, i) => {
      expect(Math.abs(w.startMs - truth[i][0])).toBeLessThanOrEqual(150);
      expect(Math.abs(w.endMs - truth[i][1])).toBeLessThanOrEqual(150);
      if (i > 0) expect(w.startMs).toBeGreaterThanOrEqual(words[i - 1].endMs);
    });
    expect(words[0].startMs).toBe(119);
    expect(words[5].endMs).toBe(2487);
  });

  it('keeps punctuation-only tokens with the word before them', () => {
    const words = alignWords(
      'yes — no',
      parsePhoneDurations('pau:0.1 y:0.2 eh:0.3 s:0.4 pau:0.5 n:0.6 ow:0.7 pau:0.8'),
    );
    expect(words.map((w) => w.text)).toEqual(['yes —', 'no']);
  });
});
