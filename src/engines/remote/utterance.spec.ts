import { Utterance } from './utterance';

describe('Utterance', () => {
  it('forwards deltas in order with spans that never go backwards, and a final with the whole text', () => {
    const u = new Utterance('item_1', 1000);
    expect(u.delta('hello', 1400)).toMatchObject({ delta: 'hello', startMs: 1000, endMs: 1400, done: false });
    expect(u.delta(' world', 1300)).toMatchObject({ delta: ' world', startMs: 1400, endMs: 1400 });
    u.endMs = 2000;
    expect(u.done(' hello world ')).toEqual({
      type: 'input_transcript',
      itemId: 'item_1',
      delta: '',
      startMs: 1000,
      endMs: 2000,
      done: true,
      transcript: 'hello world',
    });
  });

  it('after a move to another worker, forwards only text beyond what the client already has', () => {
    const u = new Utterance('item_2', 0);
    u.delta('the quick', 500);
    u.restart();
    expect(u.delta('the', 700)).toBeNull();
    expect(u.delta(' quick', 800)).toBeNull();
    expect(u.delta(' brown', 900)).toMatchObject({ delta: ' brown', startMs: 500, endMs: 900 });
    u.endMs = 1200;
    expect(u.done('the quick brown fox')).toMatchObject({ delta: ' fox', transcript: 'the quick brown fox' });
  });

  it('keeps quiet when the new worker hears it differently, and lets the final correct it', () => {
    const u = new Utterance('item_3', 0);
    u.delta('a cat', 300);
    u.restart();
    expect(u.delta('the cat', 400)).toBeNull();
    expect(u.done('the cat sat')).toMatchObject({ delta: '', transcript: 'the cat sat' });
  });
});
