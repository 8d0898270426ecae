import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { resampleClip } from '../../../platform/audio/resampler';
import { parseWav } from '../../../platform/audio/wav';
import { FLITE_SENTENCES } from '../testing/speech-fixtures';
import { FliteSynthesizer, SynthesizedSpeech } from './flite-synthesizer';
import { parsePhoneDurations } from '../testing/flite-cli';
import { alignWords } from './word-timing';

const SENTENCES = [
  'I heard: please turn on the kitchen light.',
  "Hello, it's 3:45 pm; the total is $12.50.",
  ...FLITE_SENTENCES.slice(0, 3),
];

let dir: string;

function bytes(pcm: Int16Array): Buffer {
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
}

/** What FliteSynthesizer did before the addon: the CLI, its WAVE and its -psdur line. */
async function throughCli(voice: string, text: string, sampleRate: number | null): Promise<SynthesizedSpeech> {
  const file = join(dir, 'speech.wav');
  const { stdout } = await promisify(execFile)('flite', ['-voice', voice, '-psdur', '-t', text, '-o', file]);
  const clip = parseWav(await readFile(file));
  const rate = sampleRate ?? clip.sampleRate;
  return {
    pcm: resampleClip(clip.samples, clip.sampleRate, rate),
    sampleRate: rate,
    words: alignWords(text, parsePhoneDurations(stdout)),
  };
}

describe('FliteSynthesizer', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'continuum-flite-synth-spec-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // The test sets (turn-set.ts, calibration-set.ts, speech-fixtures.ts) speak at flite's own rate
  // with awb, rms and slt; the engine at 24 kHz with rms. Their audio and words must not change.
  it.each([
    ['rms', 24_000],
    ['rms', null],
    ['awb', null],
    ['slt', null],
    ['kal', 24_000],
  ] as const)('speaks %s at %s Hz exactly as the CLI path did', async (voice, sampleRate) => {
    const synthesizer = new FliteSynthesizer({ voice, sampleRate });
    for (const text of SENTENCES) {
      const before = await throughCli(voice, text, sampleRate);
      const now = await synthesizer.synthesize(text);
      expect(now.sampleRate).toBe(before.sampleRate);
      expect(now.pcm.length).toBe(before.pcm.length);
      expect(bytes(now.pcm).equals(bytes(before.pcm))).toBe(true);
      expect(now.words).toEqual(before.words);
    }
  });

  it('refuses an unknown voice when it is made, not at its first sentence', () => {
    expect(() => new FliteSynthesizer({ voice: 'alloy' })).toThrow("unknown flite voice 'alloy'");
  });
});
