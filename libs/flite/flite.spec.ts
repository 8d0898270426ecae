import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { loopGapDuring } from '../../test/support/event-loop';
import { addonPath, FLITE_VOICES, FliteSpeech, FliteVoice, isFliteVoice, synthesize } from './index';

const SENTENCES = [
  'I heard:',
  'I heard: please turn on the kitchen light.',
  "It's 3:45 pm on Tuesday, March 4th; the total is $12.50, isn't it?",
  'Sure. The forecast for tomorrow is mostly sunny with a high of twenty one degrees, light winds ' +
    'from the west, and a small chance of showers in the late evening, so you may want to take an umbrella.',
];

interface CliSpeech {
  psdur: string;
  sampleRate: number;
  samples: Buffer;
}

let dir: string;

/** The reference: Debian's flite CLI, as the embedded voice ran it before the addon. */
async function cli(voice: FliteVoice, text: string): Promise<CliSpeech> {
  const file = join(dir, `${voice}.wav`);
  const { stdout } = await promisify(execFile)('flite', ['-voice', voice, '-psdur', '-t', text, '-o', file]);
  const wav = await readFile(file);
  // flite writes a canonical 44-byte header: RIFF, fmt (rate at byte 24), then the data chunk.
  expect(wav.toString('latin1', 36, 40)).toBe('data');
  return {
    psdur: stdout.trim(),
    sampleRate: wav.readUInt32LE(24),
    samples: wav.subarray(44, 44 + wav.readUInt32LE(40)),
  };
}

/** The segments as `flite -psdur` prints them (`printf("%s:%1.3f ")`). */
function psdur(speech: FliteSpeech): string {
  return speech.segments.map((s) => `${s.name}:${s.endSeconds.toFixed(3)}`).join(' ');
}

function bytes(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

describe('flite addon', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'continuum-flite-spec-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(FLITE_VOICES)("gives the CLI's exact samples and segments (%s)", async (voice) => {
    for (const text of SENTENCES) {
      const reference = await cli(voice, text);
      const speech = await synthesize(voice, text);
      expect(speech.sampleRate).toBe(reference.sampleRate);
      expect(speech.samples.length).toBe(reference.samples.length / 2);
      // Buffer equality rather than toEqual: a mismatch reports without printing 100k samples.
      expect(bytes(speech.samples).equals(reference.samples)).toBe(true);
      expect(psdur(speech)).toBe(reference.psdur);
    }
  });

  it('gives the same samples on every call (the clustergen voices draw noise from rand())', async () => {
    const first = await synthesize('awb', SENTENCES[1]);
    await synthesize('slt', SENTENCES[2]);
    const again = await synthesize('awb', SENTENCES[1]);
    expect(bytes(again.samples).equals(bytes(first.samples))).toBe(true);
  });

  it('rejects an unknown voice and text with nothing to say, without crashing', async () => {
    await expect(synthesize('alloy' as FliteVoice, 'hello')).rejects.toThrow("unknown flite voice 'alloy'");
    await expect(synthesize('rms', '')).rejects.toThrow('text is empty');
    await expect(synthesize('rms', ' \n\t ')).rejects.toThrow('text is empty');
    await expect(synthesize('rms', 'a\0b')).rejects.toThrow('NUL');
    await expect(synthesize('rms', 42 as unknown as string)).rejects.toThrow('synthesize(voice: string, text: string)');
    // Still working afterwards.
    expect((await synthesize('rms', 'ok')).samples.length).toBeGreaterThan(0);
    expect(isFliteVoice('kal16')).toBe(true);
    expect(isFliteVoice('aria')).toBe(false);
  });

  it('synthesises off the event loop', async () => {
    const long = Array.from({ length: 6 }, () => SENTENCES[3]).join(' ');
    const { maxGapMs, workMs } = await loopGapDuring(() => synthesize('rms', long));
    // About 40 s of speech, several hundred ms of work in one call.
    expect(workMs).toBeGreaterThan(150);
    expect(maxGapMs).toBeLessThan(workMs / 3);
  });

  it('serves concurrent calls, each with its own sentence', async () => {
    // The wrapper queues calls; the addon's mutex must also hold when they reach it together, so
    // the native function is called directly too, bypassing the queue.
    const native = require(addonPath()) as { synthesize: typeof synthesize };
    const jobs = FLITE_VOICES.flatMap((voice) => SENTENCES.slice(0, 3).map((text) => ({ voice, text })));
    const queued = await Promise.all(jobs.map((job) => synthesize(job.voice, job.text)));
    const direct = await Promise.all(jobs.map((job) => native.synthesize(job.voice, job.text)));
    for (const [i, job] of jobs.entries()) {
      const alone = await synthesize(job.voice, job.text);
      for (const together of [queued[i], direct[i]]) {
        expect(bytes(together.samples).equals(bytes(alone.samples))).toBe(true);
        expect(together.segments).toEqual(alone.segments);
      }
    }
  });
});
