/**
 * Voicechat turn-taking with the embedded engine at its default settings (end-of-turn confidence,
 * eager answers): a user who only pauses is not answered in the middle of the sentence, a finished
 * question is answered, and speech over the answer stops it promptly (barge-in).
 */
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { speechSpan } from '../../src/engines/embedded/testing/speech-timing';
import { sleep } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const CHUNK_BYTES = 3840; // 80 ms

describe('voicechat turn-taking with end-of-turn confidence', () => {
  let t: TestApp;
  let apiKey: string;
  let question: Buffer;
  let greeting: Buffer;
  let paused: Buffer;
  let pauseEndMs: number;
  let interruption: Buffer;
  let interruptionOnsetMs: number;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0], { env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '2' } });
    ({ apiKey } = await t.newProject());
    const [ask, hello, first, second, talk] = await fliteUtterances('awb', [
      'what time is it right now',
      'hello there how are you today',
      'can you tell me the',
      'time right now',
      'the quick brown fox jumped over the lazy dog',
    ]);
    const trim = (samples: Int16Array) => {
      const span = speechSpan(samples);
      return samples.subarray(span.startMs * 24, span.endMs * 24);
    };
    const pcm = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    question = pcm(concatAudio([silence(400), trim(toSessionAudio(ask.clip)), silence(1600)]));
    greeting = pcm(concatAudio([silence(400), trim(toSessionAudio(hello.clip)), silence(1600)]));
    const head = trim(toSessionAudio(first.clip));
    pauseEndMs = 400 + head.length / 24 + 600;
    paused = pcm(concatAudio([silence(400), head, silence(600), trim(toSessionAudio(second.clip)), silence(1600)]));
    const talking = toSessionAudio(talk.clip);
    interruptionOnsetMs = speechSpan(talking).startMs;
    interruption = pcm(talking);
  }, 120_000);
  afterAll(() => t?.close());

  /** Real-time pace in 80 ms chunks; returns the wall time audio position 0 was "spoken" at. */
  const stream = async (c: SocketClient, audio: Buffer): Promise<number> => {
    const t0 = Date.now();
    for (let i = 0; i * CHUNK_BYTES < audio.length; i++) {
      const wait = t0 + (i + 1) * 80 - Date.now();
      if (wait > 0) await sleep(wait);
      c.send({
        type: 'session.input_audio.append',
        audio: audio.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES).toString('base64'),
      });
    }
    return t0;
  };

  const startSession = async () => {
    const c = await SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    c.send({ type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } });
    await c.waitFor('session.started', 30_000);
    return c;
  };

  const turnEvents = (c: SocketClient, type: string) =>
    c.events.filter((e) => e.type === 'session.turn.event' && e.event.type === type);

  it('answers a finished question, having prepared it on the eager end of turn', async () => {
    const c = await startSession();
    await stream(c, question);
    const said = await c.waitFor((e) => e.type === 'session.output_transcript.delta' && e.done === true, 30_000);
    expect(said.transcript).toMatch(/^It is /);
    expect(turnEvents(c, 'eager_end_of_turn')).toHaveLength(1);
    expect(turnEvents(c, 'end_of_turn').map((e) => e.event.trigger)).toEqual(['model']);
    const order = c.events.map((e) => (e.type === 'session.turn.event' ? e.event.type : e.type));
    expect(order.indexOf('eager_end_of_turn')).toBeLessThan(order.indexOf('end_of_turn'));
    expect(order.indexOf('end_of_turn')).toBeLessThan(order.indexOf('response_started'));
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
  }, 120_000);

  it('does not answer a sentence in its mid-sentence pause, and answers it once it is finished', async () => {
    const c = await startSession();
    const t0 = await stream(c, paused);
    const started = await c.waitFor(
      (e) => e.type === 'session.turn.event' && e.event.type === 'response_started',
      30_000,
    );
    const startedAt = c.events.indexOf(started);
    await c.waitFor((e) => e.type === 'session.output_transcript.delta' && e.done === true, 30_000);
    const finals = c.events.filter((e) => e.type === 'session.input_transcript.delta' && e.done === true);
    expect(finals).toHaveLength(1);
    expect(finals[0].transcript).toMatch(/tell me \w+ time/);
    expect(turnEvents(c, 'response_started')).toHaveLength(1);
    expect(c.events.indexOf(finals[0])).toBeLessThan(startedAt);
    // The answer began after the user's second part began: nothing was said into the pause.
    expect(c.receivedAt(started)).toBeGreaterThan(t0 + pauseEndMs);
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
  }, 120_000);

  /**
   * The answer stops the moment the service confirms the user's speech (StartOfTurn, the same signal
   * the end-of-turn model starts from). Measured from the user's true onset (the clip's first sound
   * above -35 dB), that is the VAD's confirmation time on top: 96 ms of speech plus Silero's frames
   * and the 80 ms chunks: measured 396–397 ms at a load average of 15–17 on 2 cores (not measured on a
   * quiet machine; the bound below is for a loaded one).
   */
  it('stops the answer within 200 ms of the start of the user turn that speaks over it', async () => {
    const c = await startSession();
    // A greeting is answered with about 5 s of speech; the time ("It is ten forty at night.") lasts
    // under 2 s, which a loaded CI machine once played out before it confirmed the interruption.
    await stream(c, greeting);
    const started = await c.waitFor(
      (e) => e.type === 'session.turn.event' && e.event.type === 'response_started',
      30_000,
    );
    await c.waitFor('session.output_audio.delta', 30_000);
    const t0 = await stream(c, interruption.subarray(0, 48 * (interruptionOnsetMs + 600)));
    const done = await c.waitFor(
      (e) =>
        e.type === 'session.turn.event' &&
        e.event.type === 'response_done' &&
        e.event.item_id === started.event.item_id,
      30_000,
    );
    expect(done.event.interrupted).toBe(true);
    const turnStart = c.events.find(
      (e) =>
        e.type === 'session.turn.event' &&
        e.event.type === 'speech_started' &&
        c.events.indexOf(e) > c.events.indexOf(started),
    );
    const afterTurnStart = c.receivedAt(done) - c.receivedAt(turnStart);
    const afterOnset = c.receivedAt(done) - (t0 + interruptionOnsetMs);
    process.stdout.write(
      `barge-in: answer stopped ${afterTurnStart} ms after StartOfTurn, ${afterOnset} ms after the onset\n`,
    );
    expect(afterTurnStart).toBeLessThanOrEqual(200);
    expect(afterOnset).toBeLessThanOrEqual(800);
    const lastAudio = c.events
      .filter((e) => e.type === 'session.output_audio.delta' && e.item_id === started.event.item_id)
      .at(-1);
    expect(c.events.indexOf(lastAudio)).toBeLessThan(c.events.indexOf(turnStart));
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
  }, 120_000);
});
