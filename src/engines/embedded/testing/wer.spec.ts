import { describe, expect, it } from '@jest/globals';

import { corpusWer, normalizeWords, wordEdits } from './wer';

describe('word error rate', () => {
  it('normalises case, punctuation and sentence markers', () => {
    expect(normalizeWords("<s> Hello, Mister John's DOG! </s>")).toEqual(['hello', 'mister', "john's", 'dog']);
  });

  it('counts substitutions, insertions and deletions', () => {
    expect(wordEdits(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(0);
    expect(wordEdits(['a', 'b', 'c'], ['a', 'x', 'c'])).toBe(1);
    expect(wordEdits(['a', 'b', 'c'], ['a', 'c'])).toBe(1);
    expect(wordEdits(['a', 'b', 'c'], ['a', 'b', 'c', 'd', 'e'])).toBe(2);
    expect(wordEdits([], ['a'])).toBe(1);
  });

  it('pools edits over a corpus', () => {
    const result = corpusWer([
      { reference: 'ten of clubs', hypothesis: 'ten of clubs' },
      { reference: 'five five', hypothesis: 'fine' },
    ]);
    expect(result).toEqual({ wer: 2 / 5, edits: 2, words: 5 });
  });
});
