/** The live persona end to end: a spoken question in, a spoken answer with its transcript out. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { EngineEvent, EngineStream, EngineStreamConfig } from '../../session-core';
import { EmbeddedSpeechEngine } from './embedded-speech.engine';
import * as fixtures from './testing/speech-fixtures';
import { EventLog, feedAudio } from './testing/stream-driver';
import { corpusWer } from './testing/wer';

const LIVE: EngineStreamConfig = {
  sessionId: 'persona-spec',
  type: 'live',
  model: 'vendor-voicechat',
  language: 'en',
  voice: 'aria',
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
};

const isAudio = (e: EngineEvent): e is Extract<EngineEvent, { type: 'output_audio' }> => e.type === 'output_audio';

function pcmOf(events: EngineEvent[]): Int16Array {
  const bytes = Buffer.concat(events.filter(isAudio).map((e) => e.pcm));
  const out = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2);
  return out;
}

describe('live persona', () => {
  // 15:27 local time: the answer to "what time is it" is known in advance.
  const engine = new EmbeddedSpeechEngine({ maxStreams: 2, now: () => new Date(2025, 10, 21, 15, 27) });
  let question: Int16Array;
  let interruption: Int16Array;

  beforeAll(async () => {
    // awb asks, so the question is not in aria's own (rms) voice.
    const [ask, other] = await fixtures.fliteUtterances('awb', [
      'what time is it right now',
      'the weather will be sunny and warm today',
    ]);
    question = fixtures.sessionRecording([ask], 600).pcm;
    interruption = fixtures.toSessionAudio(other.clip);
    await engine.start();
  }, 60_000);

  afterAll(() => engine.shutdown());

  async function ask(log: EventLog): Promise<EngineStream> {
    const stream = await engine.open(LIVE, log.sink);
    await feedAudio(stream, question);
    return stream;
  }

  it('answers a spoken question with non-silent speech and its transcript', async () => {
    const log = new EventLog();
    const answered = log.next((e) => e.type === 'response_done');
    const stream = await ask(log);
    await answered;
    await stream.close();
    expect(log.of('error')).toEqual([]);

    const heard = log.finals()[0];
    expect(heard.transcript).toContain('time');
    const events = log.events.map((e) => e.event);
    const types = events.map((e) => e.type);
    expect(types.indexOf('response_started')).toBeGreaterThan(types.indexOf('input_transcript'));
    expect(log.of('response_done')).toEqual([
      { type: 'response_done', itemId: log.of('response_started')[0].itemId, interrupted: false },
    ]);

    const audio = pcmOf(events);
    expect(audio.length / 24).toBeGreaterThan(1500);
    expect(fixtures.rmsLevel(audio)).toBeGreaterThan(500);
    const done = log.of('output_transcript').find((e) => e.done);
    expect(done?.transcript).toBe('It is three twenty seven in the afternoon.');
    expect(done?.endMs).toBe(Math.round(audio.length / 24));
    const words = log.of('output_transcript').filter((e) => !e.done);
    expect(words.map((w) => w.delta).join('')).toBe(done?.transcript);
    words.forEach((w, i) => {
      expect(w.endMs).toBeLessThanOrEqual(audio.length / 24);
      if (i > 0) expect(w.startMs).toBeGreaterThanOrEqual(words[i - 1].endMs);
    });

    // The answer is intelligible and says what its transcript says: recognise it again.
    const check = new EventLog();
    const listener = await engine.open({ ...LIVE, type: 'transcription', voice: null }, check.sink);
    await feedAudio(listener, fixtures.concatAudio([fixtures.silence(500), audio, fixtures.silence(800)]));
    await listener.close();
    const reheard = check
      .finals()
      .map((f) => f.transcript)
      .join(' ');
    expect(corpusWer([{ reference: done?.transcript ?? '', hypothesis: reheard }]).wer).toBeLessThanOrEqual(0.35);
  }, 60_000);

  it('stops speaking on interrupt()', async () => {
    const log = new EventLog();
    const speaking = log.next(isAudio);
    const stream = await ask(log);
    await speaking;
    stream.interrupt();
    const chunks = log.of('output_audio').length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(log.of('output_audio')).toHaveLength(chunks);
    expect(log.of('response_done')).toEqual([expect.objectContaining({ interrupted: true })]);
    const done = log.of('output_transcript').find((e) => e.done);
    expect('It is three twenty seven in the afternoon.'.startsWith(done?.transcript ?? 'x')).toBe(true);
    await stream.close();
  }, 60_000);

  it('stops speaking by itself when the user talks over it (barge-in)', async () => {
    const log = new EventLog();
    const speaking = log.next(isAudio);
    const stream = await ask(log);
    await speaking;
    const response = log.of('response_started')[0].itemId;
    const stopped = log.next((e) => e.type === 'response_done');
    const feeding = feedAudio(stream, interruption, { realtime: true });
    expect(await stopped).toEqual({ type: 'response_done', itemId: response, interrupted: true });
    await feeding;
    await stream.close();
    const events = log.events.map((e) => e.event);
    const started = events.findIndex((e) => e.type === 'response_started');
    const bargeIn = events.findIndex((e, i) => i > started && e.type === 'speech_started');
    const end = events.findIndex((e) => e.type === 'response_done');
    expect(bargeIn).toBeGreaterThan(0);
    // The voice stops at the moment the user's speech is confirmed: not one more chunk after it.
    expect(end).toBeGreaterThan(bargeIn);
    expect(events.slice(bargeIn).filter((e) => isAudio(e) && e.itemId === response)).toEqual([]);
  }, 60_000);
});
