import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { loopGapDuring } from '../../test/support/event-loop';
import { baseWord, DEBIAN_EN_US_MODEL, isFiller, PocketsphinxDecoder, toArgv } from './index';

/** "go forward ten meters", 16 kHz raw pcm16 from Debian's pocketsphinx-testdata. */
const GOFORWARD = '/usr/share/pocketsphinx/test/data/goforward.raw';

function rawPcm(path: string): Int16Array {
  const bytes = readFileSync(path);
  const samples = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
  return samples;
}

describe('pocketsphinx addon', () => {
  let decoder: PocketsphinxDecoder;
  const audio = rawPcm(GOFORWARD);

  beforeAll(async () => {
    decoder = await PocketsphinxDecoder.create(DEBIAN_EN_US_MODEL, { samprate: 16_000 });
  });

  afterAll(async () => {
    await decoder.free();
  });

  it('recognises a recording, with partial hypotheses while it streams', async () => {
    await decoder.startUtt();
    const partials: string[] = [];
    for (let i = 0; i < audio.length; i += 1600) {
      const result = await decoder.process(audio.subarray(i, i + 1600));
      partials.push(result.hyp);
    }
    const final = await decoder.endUtt(true);
    expect(final.hyp).toBe('go forward ten meters');
    // Words appear before the end of the audio, not only at endUtt.
    expect(partials.slice(0, -3).some((h) => h.startsWith('go forward'))).toBe(true);
    const words = (final.segments ?? []).filter((s) => !isFiller(s.word));
    expect(words.map((s) => baseWord(s.word))).toEqual(['go', 'forward', 'ten', 'meters']);
    // Frames are utterance-relative, ordered and inside the audio (100 frames per second).
    const frames = audio.length / 160;
    words.forEach((w, i) => {
      expect(w.startFrame).toBeLessThanOrEqual(w.endFrame);
      expect(w.endFrame).toBeLessThan(frames);
      if (i > 0) expect(w.startFrame).toBeGreaterThan(words[i - 1].endFrame);
      expect(w.posterior).toBeGreaterThan(0);
      expect(w.posterior).toBeLessThanOrEqual(1);
    });
  });

  it('starts every utterance at frame 0 (the library itself keeps counting)', async () => {
    for (let round = 0; round < 2; round++) {
      await decoder.startUtt();
      await decoder.process(audio);
      const final = await decoder.endUtt(true);
      expect(final.segments?.[0].startFrame).toBe(0);
    }
  });

  it('decodes off the event loop', async () => {
    const long = new Int16Array(audio.length * 4);
    for (let k = 0; k < 4; k++) long.set(audio, k * audio.length);
    const { maxGapMs, workMs } = await loopGapDuring(async () => {
      await decoder.startUtt();
      await decoder.process(long);
      await decoder.endUtt();
    });
    // One call decodes 11 s of audio (about a second of work).
    expect(workMs).toBeGreaterThan(200);
    expect(maxGapMs).toBeLessThan(workMs / 3);
  });

  it('rejects misuse instead of crashing', async () => {
    await expect(decoder.process(audio.subarray(0, 160))).rejects.toThrow('outside an utterance');
    await expect(PocketsphinxDecoder.create({ ...DEBIAN_EN_US_MODEL, hmm: '/nonexistent' })).rejects.toThrow(
      'could not load',
    );
    await expect(PocketsphinxDecoder.create(DEBIAN_EN_US_MODEL, { 'no-such-option': 1 })).rejects.toThrow(
      'rejected the configuration',
    );
    const freed = await PocketsphinxDecoder.create(DEBIAN_EN_US_MODEL);
    await freed.free();
    await expect(freed.startUtt()).rejects.toThrow('freed');
  });
});

describe('pocketsphinx helpers', () => {
  it('builds command-line arguments', () => {
    expect(toArgv({ samprate: 24000, fwdflat: false, bestpath: true, '-lw': 6.5 })).toEqual([
      '-samprate',
      '24000',
      '-fwdflat',
      'no',
      '-bestpath',
      'yes',
      '-lw',
      '6.5',
    ]);
  });

  it('tells words from fillers and strips pronunciation variants', () => {
    expect(['<s>', '</s>', '<sil>', '[NOISE]', '++garbage++', 'was'].map(isFiller)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(baseWord('was(2)')).toBe('was');
    expect(baseWord('(paren')).toBe('(paren');
  });
});
