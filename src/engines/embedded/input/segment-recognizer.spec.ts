import { describe, expect, it } from '@jest/globals';

import type { DecoderResult, PocketsphinxDecoder } from '../../../../libs/pocketsphinx';
import { TimedWord } from './partial-stabilizer';
import { SampleHistory } from './sample-history';
import { SegmentRecognizer } from './segment-recognizer';

const RATE = 24_000;
const MS = RATE / 1000;

/** A decoder whose hypothesis is "the" from 150 ms into the segment, reported along each batch. */
function fakeDecoder(calls: Array<{ samples: number; stepSamples: number }>): PocketsphinxDecoder {
  let fed = 0;
  const hypAt = (samples: number): string => (samples >= 150 * MS ? 'the' : '');
  const fake = {
    startUtt: () => Promise.resolve(),
    process: (pcm: Int16Array, _withSegments: boolean, stepSamples = 0): Promise<DecoderResult> => {
      calls.push({ samples: pcm.length, stepSamples });
      const start = fed;
      fed += pcm.length;
      const steps = [];
      for (let at = stepSamples; stepSamples > 0 && at < pcm.length; at += stepSamples)
        steps.push({ samples: at, hyp: hypAt(start + at) });
      const hyp = hypAt(fed);
      const segments = hyp ? [{ word: 'the', startFrame: 5, endFrame: 14, posterior: 1 }] : [];
      return Promise.resolve({ hyp, inSpeech: true, frames: fed / 240, segments, steps });
    },
    endUtt: () => Promise.resolve({ hyp: hypAt(fed), inSpeech: false, frames: fed / 240, segments: [] }),
  };
  return fake as unknown as PocketsphinxDecoder;
}

describe('SegmentRecognizer', () => {
  it('asks the decoder for hypotheses along each batch, so a word is timed from where it appeared', async () => {
    const calls: Array<{ samples: number; stepSamples: number }> = [];
    const history = new SampleHistory();
    history.append(new Int16Array(400 * MS));
    const stable: TimedWord[] = [];
    const recognizer = new SegmentRecognizer(
      fakeDecoder(calls),
      history,
      {
        sampleRate: RATE,
        stableMs: 160,
        settledMs: 64,
        maxBatchSamples: RATE,
        minBatchSamples: 32 * MS,
        stepSamples: 10 * MS,
      },
      (words) => stable.push(...words),
      (error) => {
        throw error;
      },
    );
    // The backlog of a confirmed onset: 400 ms in one call. "the" appeared at 150 ms, so it has
    // been there 250 ms by the batch's end: sent at once, not 160 ms of audio later.
    recognizer.begin(0);
    recognizer.pump(history.end);
    await recognizer.end(history.end);
    expect(calls[0]).toEqual({ samples: 400 * MS, stepSamples: 10 * MS });
    expect(stable.map((w) => w.word)).toEqual(['the']);
  });
});
