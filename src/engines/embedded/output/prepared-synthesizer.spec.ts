import type { SynthesizedSpeech } from './flite-synthesizer';
import { PreparedSynthesizer } from './prepared-synthesizer';
import { withoutLeadingSilence } from './response-player';

class CountingSynthesizer {
  readonly calls: string[] = [];
  synthesize(text: string): Promise<SynthesizedSpeech> {
    this.calls.push(text);
    return Promise.resolve({ pcm: new Int16Array(240), sampleRate: 24_000, words: [] });
  }
}

describe('PreparedSynthesizer', () => {
  it('synthesises the first piece ahead and hands it over once, when the answer starts with it', async () => {
    const inner = new CountingSynthesizer();
    const voice = new PreparedSynthesizer(inner);
    voice.prepare('It is noon. Anything else?');
    voice.prepare('It is noon. Anything else?'); // the same answer is not synthesised twice
    expect(inner.calls).toEqual(['It is noon.']);
    await voice.synthesize('It is noon.');
    await voice.synthesize('Anything else?');
    await voice.synthesize('It is noon.'); // used once only
    expect(inner.calls).toEqual(['It is noon.', 'Anything else?', 'It is noon.']);
    expect({ prepared: voice.preparedCount, used: voice.usedCount }).toEqual({ prepared: 1, used: 1 });
  });

  it("prepares the answer's first clause, which an answer to slightly different words still starts with", async () => {
    const inner = new CountingSynthesizer();
    const voice = new PreparedSynthesizer(inner);
    voice.prepare('I heard: turn on the lie.');
    await voice.synthesize('I heard:'); // the player's first piece of "I heard: turn on the light."
    expect(inner.calls).toEqual(['I heard:']);
    expect(voice.usedCount).toBe(1);
  });

  it('drops a preparation that was discarded or that the answer does not use', async () => {
    const inner = new CountingSynthesizer();
    const voice = new PreparedSynthesizer(inner);
    voice.prepare('I heard: hello.');
    voice.discard();
    await voice.synthesize('I heard: hello.');
    voice.prepare('I heard: hello.');
    await voice.synthesize('I heard: hello there.');
    expect(voice.usedCount).toBe(0);
    expect(inner.calls).toHaveLength(4);
  });
});

describe('withoutLeadingSilence', () => {
  it("cuts flite's leading silence to 20 ms and moves the words with the audio", () => {
    const pcm = new Int16Array(24_000);
    pcm.fill(5000, 4800); // 200 ms of silence, then sound
    const trimmed = withoutLeadingSilence({
      pcm,
      sampleRate: 24_000,
      words: [{ text: 'hi', startMs: 200, endMs: 900 }],
    });
    expect(trimmed.pcm.length).toBe(24_000 - 4800 + 480);
    expect(trimmed.words).toEqual([{ text: 'hi', startMs: 20, endMs: 720 }]);
    const silent = { pcm: new Int16Array(100), sampleRate: 24_000, words: [] };
    expect(withoutLeadingSilence(silent)).toBe(silent);
  });

  it('counts low-level noise before the voice as silence, even with samples above the silence level in it', () => {
    const pcm = new Int16Array(24_000);
    // 150 ms of noise at RMS ~50 (a sample of 150 now and then, as flite leaves), then the voice.
    for (let i = 0; i < 3600; i++) pcm[i] = i % 100 === 0 ? 150 : i % 2 ? 50 : -50;
    pcm.fill(6000, 3600);
    const trimmed = withoutLeadingSilence({
      pcm,
      sampleRate: 24_000,
      words: [{ text: 'hi', startMs: 150, endMs: 600 }],
    });
    expect(trimmed.pcm.length).toBe(24_000 - 3600 + 480);
    expect(trimmed.words).toEqual([{ text: 'hi', startMs: 20, endMs: 470 }]);
  });
});
