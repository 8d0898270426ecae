/** Streaming behaviour of transcription streams: partials, timings, turns, manual commits. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { EngineStreamConfig, FRAME_MS, TurnDetectionConfig } from '../../session-core';
import { EmbeddedSpeechEngine } from './embedded-speech.engine';
import * as fixtures from './testing/speech-fixtures';
import { speechSpan } from './testing/speech-timing';
import { EventLog, feedAudio } from './testing/stream-driver';
import { corpusWer } from './testing/wer';

const VAD: TurnDetectionConfig = { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 };

const config = (turnDetection: TurnDetectionConfig | null = VAD): EngineStreamConfig => ({
  sessionId: 'streaming-spec',
  type: 'transcription',
  model: 'vendor-asr-streaming',
  language: 'en',
  voice: null,
  turnDetection,
});

describe('streaming recognition', () => {
  const engine = new EmbeddedSpeechEngine({ maxStreams: 2 });
  let sentences: fixtures.Utterance[];

  beforeAll(async () => {
    sentences = await fixtures.fliteUtterances('rms', [
      fixtures.FLITE_SENTENCES[1],
      fixtures.FLITE_SENTENCES[5],
      fixtures.FLITE_SENTENCES[0],
    ]);
    await engine.start();
  }, 60_000);

  afterAll(() => engine.shutdown());

  async function transcribe(pcm: Int16Array, turnDetection: TurnDetectionConfig | null = VAD): Promise<EventLog> {
    const log = new EventLog();
    const stream = await engine.open(config(turnDetection), log.sink);
    await feedAudio(stream, pcm);
    await stream.close();
    expect(log.of('error')).toEqual([]);
    return log;
  }

  it('sends partial transcripts while the user is still speaking (real time), then the final', async () => {
    const { pcm, speech } = fixtures.sessionRecording([sentences[0]], 800);
    const audio = fixtures.toSessionAudio(sentences[0].clip);
    const speechEndMs = speech[0].startMs + speechSpan(audio).endMs;
    const log = new EventLog();
    const stream = await engine.open(config(), log.sink);
    const final = log.next((e) => e.type === 'input_transcript' && e.done);
    const pushedAt = await feedAudio(stream, pcm, { realtime: true });
    await final;
    await stream.close();

    const deltas = log.timed('input_transcript').filter((e) => !e.event.done && e.event.delta !== '');
    expect(deltas.length).toBeGreaterThan(0);
    // The first words arrive before the frame holding the end of speech was even sent.
    expect(deltas[0].at).toBeLessThan(pushedAt[Math.floor(speechEndMs / FRAME_MS)]);
    const types = log.events.map((e) => e.event.type);
    expect(types.slice(0, 2)).toEqual(['speech_suspected', 'speech_started']);
    expect(types.indexOf('speech_stopped')).toBeGreaterThan(types.indexOf('input_transcript'));
    const done = log.finals();
    expect(done).toHaveLength(1);
    expect(
      corpusWer([{ reference: sentences[0].reference, hypothesis: done[0].transcript ?? '' }]).wer,
    ).toBeLessThanOrEqual(0.35);
    // Deltas join into text; where a partial word was revised, the final transcript is what counts.
    const joined = log
      .of('input_transcript')
      .map((e) => e.delta)
      .join('');
    expect(joined.split(' ')).toHaveLength((done[0].transcript ?? '').split(' ').length);
  }, 30_000);

  it('suspects speech at its first sound, before it confirms it (a response is held from there)', async () => {
    const { pcm, speech } = fixtures.sessionRecording([sentences[0]], 800);
    const firstVoicedMs = speech[0].startMs + speechSpan(fixtures.toSessionAudio(sentences[0].clip)).startMs;
    const log = new EventLog();
    const stream = await engine.open(config(), log.sink);
    const pushedAt = await feedAudio(stream, pcm, { realtime: true });
    await stream.close();
    const [suspected] = log.timed('speech_suspected');
    const [started] = log.timed('speech_started');
    expect(log.of('speech_ruled_out')).toEqual([]);
    expect(started.at).toBeGreaterThan(suspected.at);
    // Within two 80 ms frames of the frame that holds the first voiced sample.
    expect(suspected.at).toBeLessThan(pushedAt[Math.floor(firstVoicedMs / FRAME_MS) + 2]);
  }, 30_000);

  it('rules out a click: a suspicion, then nothing', async () => {
    const click = fixtures.silence(2000);
    for (let i = 0; i < 24 * 20; i++) click[24_000 + i] = Math.round(3000 * Math.sin(i / 3));
    const log = await transcribe(click);
    expect(log.events.map((e) => e.event.type)).toEqual(['speech_suspected', 'speech_ruled_out']);
  }, 30_000);

  it('keeps timings monotonic, integer and inside the audio', async () => {
    const { pcm, speech } = fixtures.sessionRecording(sentences, 1000);
    const log = await transcribe(pcm);
    const audioMs = pcm.length / 24;
    const events = log.of('input_transcript');
    expect(log.finals()).toHaveLength(3);
    let lastStart = 0;
    let lastEnd = 0;
    for (const e of events) {
      expect(Number.isInteger(e.startMs) && Number.isInteger(e.endMs)).toBe(true);
      expect(0 <= e.startMs && e.startMs <= e.endMs && e.endMs <= audioMs).toBe(true);
      if (!e.done) {
        expect(e.startMs).toBeGreaterThanOrEqual(lastStart);
        expect(e.endMs).toBeGreaterThanOrEqual(lastEnd);
        lastStart = e.startMs;
        lastEnd = e.endMs;
      }
    }
    const started = log.of('speech_started');
    const stopped = log.of('speech_stopped');
    expect(started).toHaveLength(3);
    log.finals().forEach((final, i) => {
      // Turn and words sit where the speech really is: Silero needs a few frames to be sure.
      const truth = speechSpan(fixtures.toSessionAudio(sentences[i].clip));
      const onset = speech[i].startMs + truth.startMs;
      const offset = speech[i].startMs + truth.endMs;
      expect(started[i].audioStartMs).toBeGreaterThanOrEqual(onset - VAD.prefixPaddingMs - 100);
      expect(started[i].audioStartMs).toBeLessThanOrEqual(onset - VAD.prefixPaddingMs + 200);
      expect(Math.abs(stopped[i].audioEndMs - offset)).toBeLessThanOrEqual(250);
      const words = final.words ?? [];
      expect(words.length).toBeGreaterThan(3);
      expect(Math.abs(words[0].startMs - onset)).toBeLessThanOrEqual(200);
      expect(Math.abs(words[words.length - 1].endMs - offset)).toBeLessThanOrEqual(200);
      words.forEach((w, k) => {
        expect(w.startMs).toBeLessThanOrEqual(w.endMs);
        if (k > 0) expect(w.startMs).toBeGreaterThanOrEqual(words[k - 1].endMs);
        expect(w.confidence).toBeGreaterThanOrEqual(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
      });
      expect(final.startMs).toBe(words[0].startMs);
      expect(final.endMs).toBe(words[words.length - 1].endMs);
    });
  }, 60_000);

  it('ends a turn after silenceDurationMs, and not before', async () => {
    const { pcm } = fixtures.sessionRecording(sentences.slice(0, 2), 700);
    const patient = await transcribe(pcm, { ...VAD, silenceDurationMs: 1200 });
    expect(patient.finals()).toHaveLength(1);
    expect(patient.finals()[0].transcript?.split(' ').length).toBeGreaterThan(8);
    const quick = await transcribe(pcm, { ...VAD, silenceDurationMs: 300 });
    expect(quick.finals()).toHaveLength(2);
  }, 60_000);

  it('starts a turn prefixPaddingMs before the detected speech', async () => {
    const { pcm } = fixtures.sessionRecording([sentences[1]], 1000);
    const none = await transcribe(pcm, { ...VAD, prefixPaddingMs: 0 });
    const long = await transcribe(pcm, { ...VAD, prefixPaddingMs: 600 });
    expect(none.of('speech_started')[0].audioStartMs - long.of('speech_started')[0].audioStartMs).toBe(600);
  }, 60_000);

  it('with turn detection off, sends no turn events and one final per commit; clear() drops audio', async () => {
    const log = new EventLog();
    const stream = await engine.open(config(null), log.sink);
    const [a, b, c] = sentences.map((s) =>
      fixtures.concatAudio([fixtures.silence(400), fixtures.toSessionAudio(s.clip), fixtures.silence(400)]),
    );
    await feedAudio(stream, a);
    stream.commit();
    await feedAudio(stream, b);
    stream.clear();
    await feedAudio(stream, c);
    stream.commit();
    await stream.close();
    expect(log.of('speech_started')).toEqual([]);
    expect(log.of('speech_stopped')).toEqual([]);
    const finals = log.finals();
    expect(finals).toHaveLength(2);
    expect(
      corpusWer([{ reference: sentences[0].reference, hypothesis: finals[0].transcript ?? '' }]).wer,
    ).toBeLessThanOrEqual(0.35);
    expect(
      corpusWer([{ reference: sentences[2].reference, hypothesis: finals[1].transcript ?? '' }]).wer,
    ).toBeLessThanOrEqual(0.35);
    expect(finals[1].startMs).toBeGreaterThan((a.length + b.length) / 24);
  }, 60_000);

  it('hears 24 kHz audio as it is: content above 8 kHz and a short last frame do no harm', async () => {
    const speech = fixtures.sessionRecording([sentences[2]], 800).pcm;
    for (let i = 0; i < speech.length; i++)
      speech[i] = Math.max(
        -32768,
        Math.min(32767, speech[i] + Math.round(1500 * Math.sin((2 * Math.PI * 10_000 * i) / 24_000))),
      );
    const log = await transcribe(speech.subarray(0, speech.length - 1000)); // ends in a partial frame
    expect(log.finals()).toHaveLength(1);
    expect(
      corpusWer([{ reference: sentences[2].reference, hypothesis: log.finals()[0].transcript ?? '' }]).wer,
    ).toBeLessThanOrEqual(0.35);
    expect(log.of('response_started')).toEqual([]); // transcription sessions never answer
  }, 60_000);
});
