import {
  fliteUtterances,
  silence as silentSamples,
  toSessionAudio,
  concatAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { chunks, rms, sleep } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The embedded engine through the live socket, as a user meets it: a spoken question in (synthesised
 * by a flite voice other than aria's, so the engine does not hear its own voice), its transcript,
 * the persona's spoken answer with its transcript, and barge-in.
 */
describe('voicechat with the embedded engine', () => {
  let t: TestApp;
  let apiKey: string;
  let question: Buffer;
  let greeting: Buffer;
  let interruption: Buffer;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0], { env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '2' } });
    ({ apiKey } = await t.newProject());
    const [ask, hello, talk] = await fliteUtterances('awb', [
      'what time is it right now',
      'hello there how are you today',
      'the quick brown fox jumped over the lazy dog',
    ]);
    const pcm = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    question = pcm(concatAudio([silentSamples(400), toSessionAudio(ask.clip), silentSamples(1600)]));
    greeting = pcm(concatAudio([silentSamples(400), toSessionAudio(hello.clip), silentSamples(1600)]));
    interruption = pcm(toSessionAudio(talk.clip));
  }, 120_000);
  afterAll(() => t?.close());

  const stream = async (c: SocketClient, audio: Buffer) => {
    for (const chunk of chunks(audio, 160)) {
      c.send({ type: 'session.input_audio.append', audio: chunk.toString('base64') });
      await sleep(160);
    }
  };

  const startSession = async () => {
    const c = await SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    c.send({ type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } });
    await c.waitFor('session.started', 30_000);
    return c;
  };

  it('hears a spoken question and answers it in speech, with transcripts', async () => {
    const c = await startSession();
    await stream(c, question);
    const heard = await c.waitFor((e) => e.type === 'session.input_transcript.delta' && e.done === true, 30_000);
    expect(heard.transcript).toMatch(/time/);
    const said = await c.waitFor((e) => e.type === 'session.output_transcript.delta' && e.done === true, 30_000);
    expect(said.transcript).toMatch(/^It is /);
    await c.waitFor((e) => e.type === 'session.turn.event' && e.event.type === 'response_done', 30_000);
    const audio = Buffer.concat(c.ofType('session.output_audio.delta').map((d) => Buffer.from(d.delta, 'base64')));
    expect(audio.length).toBeGreaterThan(24_000 * 2); // more than a second of speech
    expect(rms(audio)).toBeGreaterThan(300);
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
  }, 120_000);

  it('stops speaking when the user barges in', async () => {
    const c = await startSession();
    // A greeting is answered with about 5 s of speech; the time's answer lasts under 2 s, which a
    // loaded machine once played out before it confirmed the interruption.
    await stream(c, greeting);
    const started = await c.waitFor(
      (e) => e.type === 'session.turn.event' && e.event.type === 'response_started',
      30_000,
    );
    await c.waitFor('session.output_audio.delta', 30_000);
    await stream(c, interruption);
    const done = await c.waitFor(
      (e) =>
        e.type === 'session.turn.event' &&
        e.event.type === 'response_done' &&
        e.event.item_id === started.event.item_id,
      30_000,
    );
    expect(done.event.interrupted).toBe(true);
    const at = c.events.indexOf(done);
    const laterAudio = c.events
      .slice(at + 1)
      .filter((e) => e.type === 'session.output_audio.delta' && e.item_id === started.event.item_id);
    expect(laterAudio).toHaveLength(0);
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
  }, 120_000);
});
