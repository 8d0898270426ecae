import { endingOf, endOfTurnProbability, explain, MAX_CONFIDENCE, wordsOf } from './end-of-turn.model';

const p = (silenceMs: number, hypothesis: string, stableMs = 500) =>
  endOfTurnProbability({ silenceMs, hypothesis, stableMs }).probability;

describe('end-of-turn model', () => {
  it('grows with silence and stays low while the user speaks', () => {
    const statement = 'i would like a pizza';
    expect(p(0, statement)).toBeLessThan(0.15);
    expect(p(100, statement)).toBeLessThan(p(200, statement));
    expect(p(200, statement)).toBeGreaterThan(0.7);
    expect(p(2000, statement)).toBeLessThanOrEqual(MAX_CONFIDENCE);
  });

  it('holds a turn open after words that rarely end one', () => {
    for (const last of ['and', 'but', 'the', 'um', 'to']) {
      expect(p(600, `i went to the shop ${last}`)).toBeLessThan(0.5);
    }
    expect(p(600, 'i went to the shop')).toBeGreaterThan(0.99);
  });

  it('weak continuations need more silence than a plain ending, less than a conjunction', () => {
    expect(p(300, 'can you tell me what i')).toBeLessThan(p(300, 'can you tell me the time'));
    expect(p(500, 'tell me what i')).toBeGreaterThan(p(500, 'tell me and'));
  });

  it('ends a complete question sooner than a statement', () => {
    expect(p(150, 'what time is it')).toBeGreaterThan(p(150, 'it is late now'));
  });

  it('waits for the recogniser: no words, or words still changing, lower the confidence', () => {
    expect(p(200, '')).toBeLessThan(p(200, 'hello there'));
    expect(p(200, 'hello there', 10)).toBeLessThan(p(200, 'hello there', 200));
  });

  it('explains itself as named terms', () => {
    const names = explain({ silenceMs: 100, hypothesis: 'what is the', stableMs: 0 }).map((t) => t.name);
    expect(names).toEqual(['silence', 'continuation', 'unstable']);
  });

  it('"like" holds a turn only where it wants an object, not after a noun it was misheard for', () => {
    expect(p(300, 'i would like')).toBeLessThan(0.1);
    expect(p(300, 'it looks like')).toBeLessThan(0.1);
    expect(p(300, 'turn on the kitchen like')).toBeGreaterThan(0.9);
    expect(endingOf(wordsOf('turn on the kitchen like'))).toBe('complete');
    expect(endingOf(wordsOf('i would like'))).toBe('continuation');
    expect(endingOf(wordsOf(''))).toBe('none');
  });

  it('final words are not unstable: how the partials wandered before them does not count', () => {
    const terms = (final: boolean) =>
      explain({ silenceMs: 200, hypothesis: 'hello there', stableMs: 0, final }).map((t) => t.name);
    expect(terms(false)).toContain('unstable');
    expect(terms(true)).not.toContain('unstable');
  });

  it('normalises words', () => {
    expect(wordsOf(" Don't,  STOP! ")).toEqual(["don't", 'stop']);
  });
});

describe('end-of-turn model and a recogniser that lags', () => {
  it('holds the turn while the recogniser has not heard past the end of the voice', () => {
    const behind = endOfTurnProbability({
      silenceMs: 300,
      hypothesis: 'i went to the shop',
      stableMs: 300,
      heardPastVoiceMs: 20,
    });
    const caughtUp = endOfTurnProbability({
      silenceMs: 300,
      hypothesis: 'i went to the shop',
      stableMs: 300,
      heardPastVoiceMs: 200,
    });
    expect(behind.probability).toBeLessThan(0.5);
    expect(caughtUp.probability).toBeGreaterThan(0.9);
    expect(behind.terms.map((t) => t.name)).toContain('not_heard');
  });
});
