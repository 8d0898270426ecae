import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';

import { ManualClockHost } from '../../../platform/clock/testing/manual-clock-host';
import { TickScheduler } from '../../../platform/clock/tick-scheduler';
import type { Timers } from '../../../platform/clock/timers';
import { EngineEvent } from '../../../session-core';
import { SynthesizedSpeech } from './flite-synthesizer';
import { piecesOf, ResponsePlayer, Synthesizer } from './response-player';

/** One second of a constant level per sentence, with one word per 500 ms. */
class FakeSynthesizer implements Synthesizer {
  calls: string[] = [];
  async synthesize(text: string): Promise<SynthesizedSpeech> {
    this.calls.push(text);
    const words = text.split(' ');
    return {
      pcm: new Int16Array(24_000).fill(1000),
      sampleRate: 24_000,
      words: words.map((w, i) => ({
        text: w,
        startMs: (i * 1000) / words.length,
        endMs: ((i + 1) * 1000) / words.length,
      })),
    };
  }
}

describe('ResponsePlayer', () => {
  let now = 0;
  let events: EngineEvent[];
  let synth: FakeSynthesizer;
  let player: ResponsePlayer;
  /** jest's fake timers, at the test's `now`. */
  const fakeTimers: Timers = {
    now: () => now,
    setTimer: (callback, delayMs) => setTimeout(callback, delayMs),
    clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
  };

  /** A player of 80 ms chunks at 24 kHz, recording into `events`, on `clock`. */
  const playerWith = (synthesizer: Synthesizer, leadMs: number, clock: Timers = fakeTimers) =>
    new ResponsePlayer(synthesizer, { sampleRate: 24_000, chunkMs: 80, leadMs }, (e) => events.push(e), clock);

  beforeEach(() => {
    jest.useFakeTimers();
    now = 0;
    events = [];
    synth = new FakeSynthesizer();
    player = playerWith(synth, 160);
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  async function advance(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 10) {
      now += 10;
      await jest.advanceTimersByTimeAsync(10);
    }
  }

  const audioMs = (): number => events.reduce((sum, e) => sum + (e.type === 'output_audio' ? e.pcm.length / 48 : 0), 0);

  it('paces 80 ms chunks in real time with a small lead, sentence by sentence', async () => {
    player.speak('r1', 'Hello there. How are you?');
    await advance(0);
    expect(events[0]).toEqual({ type: 'response_started', itemId: 'r1' });
    await advance(10);
    expect(audioMs()).toBe(240); // the lead (160 ms) plus the chunk playing now
    await advance(1000);
    expect(audioMs()).toBeGreaterThanOrEqual(1160);
    expect(audioMs()).toBeLessThanOrEqual(1280);
    await advance(1500);
    expect(synth.calls).toEqual(['Hello there.', 'How are you?']);
    expect(audioMs()).toBe(2000);
    const chunks = events.filter((e) => e.type === 'output_audio');
    expect(chunks.every((e) => e.type === 'output_audio' && e.pcm.length === 3840)).toBe(true);
    const done = events.filter((e) => e.type === 'output_transcript' && e.done);
    expect(done).toEqual([
      {
        type: 'output_transcript',
        itemId: 'r1',
        delta: '',
        startMs: 0,
        endMs: 2000,
        done: true,
        transcript: 'Hello there. How are you?',
      },
    ]);
    expect(events[events.length - 1]).toEqual({ type: 'response_done', itemId: 'r1', interrupted: false });
  });

  it('sends each word just before the audio it starts in, timed within the response', async () => {
    player.speak('r1', 'one two. three four.');
    await advance(2500);
    const words = events.filter((e) => e.type === 'output_transcript' && !e.done);
    expect(words.map((e) => (e.type === 'output_transcript' ? [e.delta, e.startMs, e.endMs] : []))).toEqual([
      ['one', 0, 500],
      [' two.', 500, 1000],
      [' three', 1000, 1500],
      [' four.', 1500, 2000],
    ]);
    // "three" starts at 1000 ms: it goes out with the chunk covering 960–1040, not before.
    const order = events.map((e) =>
      e.type === 'output_audio' ? 'a' : e.type === 'output_transcript' && e.delta === ' three' ? 'W' : '',
    );
    expect(order.slice(0, order.indexOf('W')).filter((x) => x === 'a')).toHaveLength(12);
  });

  it('stops on interrupt: no more audio, and the transcript is what was sent', async () => {
    player.speak('r1', 'one two three four. five six.');
    await advance(600);
    expect(player.interrupt()).toBe(true);
    const sent = audioMs();
    await advance(2000);
    expect(audioMs()).toBe(sent);
    const done = events.find((e) => e.type === 'output_transcript' && e.done);
    // 800 ms went out (lead included); "four." starts at 750 ms, so it was said in part.
    expect(done).toMatchObject({ transcript: 'one two three four.', endMs: sent });
    expect(events[events.length - 1]).toEqual({ type: 'response_done', itemId: 'r1', interrupted: true });
    expect(player.interrupt()).toBe(false);
  });

  it('sends everything at once when the lead is unbounded, and reports synthesis failures', async () => {
    const fast = playerWith(synth, Infinity);
    fast.speak('r2', 'a b. c d.');
    await advance(10);
    expect(audioMs()).toBe(2000);
    const failing: Synthesizer = { synthesize: () => Promise.reject(new Error('flite is missing')) };
    const broken = playerWith(failing, 160);
    events = [];
    broken.speak('r3', 'hello.');
    await advance(10);
    expect(events.map((e) => e.type)).toEqual(['response_started', 'error', 'output_transcript', 'response_done']);
  });

  it("starts after the first clause's synthesis, and joins the rest of its sentence without flite's lead-in", async () => {
    // Each piece as flite gives it: 200 ms of silence, then 800 ms of voice.
    const calls: string[] = [];
    const leadIn: Synthesizer = {
      synthesize: async (text) => {
        calls.push(text);
        return { pcm: new Int16Array(24_000).fill(1000, 4800), sampleRate: 24_000, words: [] };
      },
    };
    const split = playerWith(leadIn, Infinity);
    split.speak('r1', 'I heard: one two three. And more here.');
    await advance(10);
    expect(calls).toEqual(['I heard:', 'one two three.', 'And more here.']);
    // The first piece and its continuation keep 20 ms of their lead-in; the next sentence all of it.
    expect(audioMs()).toBe(820 + 820 + 1000);
  });

  it('paces on the clock it is given (the one clock of the service), with no timer of its own', async () => {
    jest.useRealTimers();
    const host = new ManualClockHost(0);
    const clock = new TickScheduler({ host });
    const paced = playerWith(synth, 160, clock);
    paced.speak('r1', 'Hello there.');
    await new Promise((resolve) => setImmediate(resolve)); // the synthesis resolves
    expect(audioMs()).toBe(160);
    expect(clock.stats().timers).toBe(1); // the next chunk waits on the clock
    host.advance(410);
    expect(audioMs()).toBe(640);
    host.advance(1000);
    expect(audioMs()).toBe(1000);
    expect(events[events.length - 1]).toEqual({ type: 'response_done', itemId: 'r1', interrupted: false });
    expect(clock.stats().timers).toBe(0);
    clock.stop();
  });
});

describe('piecesOf', () => {
  const texts = (text: string) => piecesOf(text).map((p) => (p.continues ? `+${p.text}` : p.text));

  it('cuts the first sentence after its first clause, when both sides can be spoken alone', () => {
    expect(texts('I heard: please turn on the light. Anything else?')).toEqual([
      'I heard:',
      '+please turn on the light.',
      'Anything else?',
    ]);
    expect(texts('Today is Friday, the twenty seventh of November.')).toEqual([
      'Today is Friday,',
      '+the twenty seventh of November.',
    ]);
  });

  it('keeps a sentence whole when a side would be a lone word, and cuts only the first sentence', () => {
    expect(texts('I heard: hello.')).toEqual(['I heard: hello.']);
    expect(texts('Hello! I am Aria, the voice of Continuum.')).toEqual([
      'Hello!',
      'I am Aria, the voice of Continuum.',
    ]);
    expect(texts('Goodbye. Talk to you soon.')).toEqual(['Goodbye.', 'Talk to you soon.']);
    expect(texts('')).toEqual([]);
  });
});
