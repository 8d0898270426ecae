/**
 * The same audio ends its turn at the same point whatever the batching: each turn is played through
 * `/v2/listen` (defaults) in different chunk sizes after different lead-in silences, and the
 * EndOfTurn's place on the audio timeline (audio_window_end: where the session judged the turn over)
 * must agree within ±40 ms. The first turn is issue 26's: "please turn on the kitchen light" (slt),
 * whose end once came 851 ms after the speech after a 0.3 s lead-in and 273 ms after a 0.4 s one.
 * Only audio time is asserted (decisions are made on it), so a loaded machine does not change the result.
 */
import { FliteSynthesizer } from '../../src/engines/embedded/output/flite-synthesizer';
import { concatAudio, silence, toSessionAudio } from '../../src/engines/embedded/testing/speech-fixtures';
import { speechSpan } from '../../src/engines/embedded/testing/speech-timing';
import type { LabelledTurn } from '../../src/engines/embedded/testing/turn-set';
import { playTurn } from '../../src/engines/embedded/testing/turn-runner';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const BATCHINGS: Array<{ chunkMs: number; leadMs: number }> = [
  { chunkMs: 80, leadMs: 300 },
  { chunkMs: 80, leadMs: 400 },
  { chunkMs: 20, leadMs: 430 },
  { chunkMs: 200, leadMs: 570 },
];

describe('end of turn: the same audio in different batchings', () => {
  let t: TestApp;
  let apiKey: string;
  const speech = new Map<string, Int16Array>();

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0], { env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '2' } });
    ({ apiKey } = await t.newProject());
    for (const [voice, text] of [
      ['slt', 'please turn on the kitchen light'],
      ['awb', 'what is seven times eight'],
    ]) {
      const spoken = await new FliteSynthesizer({ voice, sampleRate: null }).synthesize(text);
      const audio = toSessionAudio({ sampleRate: spoken.sampleRate, samples: spoken.pcm });
      const span = speechSpan(audio);
      speech.set(`${voice}: ${text}`, audio.subarray(span.startMs * 24, span.endMs * 24));
    }
  }, 120_000);
  afterAll(() => t?.close());

  const turn = (id: string, audio: Int16Array, leadMs: number): LabelledTurn => ({
    id,
    kind: 'command',
    voice: id,
    text: id,
    pauseMs: 0,
    pcm: concatAudio([silence(leadMs), audio, silence(1200)]),
    speechStartMs: leadMs,
    speechEndMs: leadMs + audio.length / 24,
    pauses: [],
  });

  it('puts EndOfTurn at the same audio time (±40 ms) for every chunk size and lead-in', async () => {
    const ws = t.baseUrl.replace('http', 'ws');
    const query = 'model=flux-general-en&encoding=linear16&sample_rate=24000';
    for (const [id, audio] of speech) {
      const ends: number[] = [];
      for (const { chunkMs, leadMs } of BATCHINGS) {
        const o = await playTurn(ws, apiKey, { kind: 'flux', query }, turn(id, audio, leadMs), { chunkMs });
        expect(o.earlyEnds).toBe(0);
        expect(o.endsAtAudioMs).toHaveLength(1);
        ends.push(o.endsAtAudioMs[0]);
      }
      process.stdout.write(`${id}: EndOfTurn ${ends.map(Math.round).join(', ')} ms after the speech (audio time)\n`);
      expect(Math.max(...ends) - Math.min(...ends)).toBeLessThanOrEqual(80);
      // Never later than a timer: a complete-sounding turn ends within 500 ms of silence.
      expect(Math.max(...ends)).toBeLessThanOrEqual(500);
      expect(Math.min(...ends)).toBeGreaterThan(0);
    }
  }, 180_000);
});
