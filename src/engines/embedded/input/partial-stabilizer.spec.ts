import { describe, expect, it } from '@jest/globals';

import { PartialStabilizer, TimedWord } from './partial-stabilizer';

function hyp(text: string): TimedWord[] {
  return text
    .split(' ')
    .filter(Boolean)
    .map((word, i) => ({ word, startMs: i * 300, endMs: i * 300 + 250, confidence: 1 }));
}

const words = (list: TimedWord[]): string => list.map((w) => w.word).join(' ');

describe('PartialStabilizer', () => {
  it('sends a word only after the hypothesis up to it held for the stable time', () => {
    const s = new PartialStabilizer(160);
    expect(words(s.update(hyp('the'), 200))).toBe('');
    expect(words(s.update(hyp('the co'), 280))).toBe('');
    expect(words(s.update(hyp('the coup'), 360))).toBe('the'); // "the" since 200
    expect(words(s.update(hyp('the quick'), 440))).toBe('');
    expect(words(s.update(hyp('the quick'), 520))).toBe('');
    expect(words(s.update(hyp('the quick brown'), 600))).toBe('quick'); // since 440
    expect(s.sentCount).toBe(2);
  });

  it('never sends a last word that keeps changing', () => {
    const s = new PartialStabilizer(160);
    const sequence = ['to', 'please', 'please to', 'please scared', 'please sketch', 'please schedule'];
    const sent: string[] = [];
    sequence.forEach((h, i) => sent.push(...s.update(hyp(h), 200 + i * 80).map((w) => w.word)));
    expect(sent).toEqual(['please']);
  });

  it('depends on audio time, not on how many updates arrive', () => {
    const s = new PartialStabilizer(160);
    expect(words(s.update(hyp('what time is'), 500))).toBe('');
    expect(words(s.update(hyp('what time is it'), 1500))).toBe('what time is');
  });

  it('continues by position after a revision of a sent word, and finish() adds the rest', () => {
    const s = new PartialStabilizer(100);
    s.update(hyp('what ten'), 0);
    expect(words(s.update(hyp('what ten is'), 200))).toBe('what ten');
    s.update(hyp('what time is it'), 300);
    expect(words(s.update(hyp('what time is it'), 450))).toBe('is it');
    expect(words(s.finish(hyp('what time is it right now')))).toBe('right now');
    expect(words(s.finish(hyp('what time is it right now')))).toBe('');
  });
});

describe('PartialStabilizer with a shorter time for words the decoder has moved past', () => {
  it('sends a followed word after the settled time and holds the last word for the stable time', () => {
    const s = new PartialStabilizer(160, 64);
    expect(words(s.update(hyp('the'), 100))).toBe('');
    expect(words(s.update(hyp('the quick'), 180))).toBe('the'); // followed, unchanged since 100
    expect(words(s.update(hyp('the quick'), 300))).toBe(''); // last word: 120 ms < 160
    expect(words(s.update(hyp('the quick'), 340))).toBe('quick');
  });

  it('restarts the clock of a followed word when the hypothesis before it changes', () => {
    const s = new PartialStabilizer(160, 64);
    s.update(hyp('that quick'), 100);
    expect(words(s.update(hyp('the quick'), 150))).toBe('');
    expect(words(s.update(hyp('the quick'), 214))).toBe('the');
  });
});
