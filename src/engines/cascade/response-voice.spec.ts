import type { EngineEvent } from '../../session-core';
import { nodeTimers } from '../../platform/clock/timers';
import { ResponseVoice } from './response-voice';

const ms = (n: number) => Buffer.alloc(n * 48);

describe('ResponseVoice', () => {
  const events: EngineEvent[] = [];
  let voice: ResponseVoice;

  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    events.length = 0;
    voice = new ResponseVoice('item_out', { leadMs: 160, chunkMs: 80, clock: nodeTimers }, (e) => events.push(e));
  });
  afterEach(() => {
    voice.interrupt();
    jest.useRealTimers();
  });

  const audioMs = () => events.reduce((sum, e) => sum + (e.type === 'output_audio' ? e.pcm.length / 48 : 0), 0);
  const words = () => events.filter((e) => e.type === 'output_transcript');

  it('sends audio no further than its lead ahead of playback, in chunks of at most 80 ms', () => {
    voice.beginSentence('one two three.');
    voice.addAudio(ms(1000));
    expect(events[0]).toEqual({ type: 'response_started', itemId: 'item_out' });
    expect(audioMs()).toBe(160);
    jest.advanceTimersByTime(500);
    expect(audioMs()).toBeGreaterThanOrEqual(500 + 160);
    expect(audioMs()).toBeLessThanOrEqual(500 + 160 + 80);
    expect(events.every((e) => e.type !== 'output_audio' || e.pcm.length <= 80 * 48)).toBe(true);
  });

  it('times each sentence’s words within its audio, in proportion to their letters', () => {
    voice.beginSentence('Hi.');
    voice.addAudio(ms(200));
    voice.endSentence();
    voice.beginSentence('one two three.');
    voice.addAudio(ms(1100));
    voice.endSentence();
    voice.end();
    jest.advanceTimersByTime(2000);
    expect(words().map((w) => [w.delta, w.startMs, w.endMs, w.done])).toEqual([
      ['Hi.', 0, 200, false],
      [' one', 200, 500, false],
      [' two', 500, 800, false],
      [' three.', 800, 1300, false],
      ['', 0, 1300, true],
    ]);
    expect(words().at(-1)).toMatchObject({ transcript: 'Hi. one two three.' });
    expect(events.at(-1)).toEqual({ type: 'response_done', itemId: 'item_out', interrupted: false });
    expect(audioMs()).toBe(1300);
  });

  it('sends a word just before the audio it starts in once its sentence is complete, else as soon as it is', () => {
    voice.beginSentence('first sentence here.');
    voice.addAudio(ms(1000));
    voice.endSentence(); // after 160 ms of its audio went out: its first word is late
    voice.beginSentence('second one.'); // synthesised while the first plays: on time
    voice.addAudio(ms(600));
    voice.endSentence();
    voice.end();
    jest.advanceTimersByTime(3000);
    let sentMs = 0;
    const sentAt = new Map<string, number>();
    for (const e of events) {
      if (e.type === 'output_audio') sentMs += e.pcm.length / 48;
      if (e.type === 'output_transcript' && !e.done) sentAt.set(e.delta.trim(), sentMs);
    }
    const starts = new Map(words().map((w) => [w.delta.trim(), w.startMs]));
    expect(sentAt.get('first')).toBe(160);
    expect(starts.get('first')).toBe(0);
    for (const word of ['second', 'one.']) expect(sentAt.get(word)).toBeLessThanOrEqual(starts.get(word)!);
    expect(starts.get('second')).toBe(1000);
  });

  it('stops at once on interrupt: the transcript holds the words sent; what was heard is what played', () => {
    voice.beginSentence('alpha beta gamma delta.');
    voice.addAudio(ms(2000));
    voice.endSentence();
    jest.advanceTimersByTime(600);
    // alpha [0, 526), beta [526, 947): playback is at 600 ms.
    expect(voice.spokenText()).toBe('alpha beta');
    voice.interrupt();
    const done = words().filter((w) => w.done);
    expect(done).toEqual([expect.objectContaining({ transcript: 'alpha beta' })]);
    expect(events.at(-1)).toEqual({ type: 'response_done', itemId: 'item_out', interrupted: true });
    const count = events.length;
    voice.addAudio(ms(100));
    voice.end();
    jest.advanceTimersByTime(1000);
    expect(events.length).toBe(count);
  });
});
