import {
  concatAudio,
  fliteUtterances,
  silence as silentSamples,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { chatBody, startFakeChatServer, type ChatPlan } from '../../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer, type SpeechPlan } from '../../src/engines/cascade/testing/fake-speech-server';
import type { RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import { chunks, rms, sleep } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * vendor-voicechat served by the cascade through the real app and the live socket, configured by an
 * engines document: the embedded engine listens (flite speech in), the answer comes from a fake OpenAI-compatible chat server and
 * is voiced by a fake OpenAI-compatible speech server, both real HTTP servers on sockets.
 */
describe('voicechat with the cascaded agent', () => {
  let t: TestApp;
  let apiKey: string;
  let chat: RecordingServer;
  let speech: RecordingServer;
  let chatPlan: ChatPlan;
  let speechPlan: SpeechPlan;
  let question: Buffer;
  let interruption: Buffer;

  beforeAll(async () => {
    chat = await startFakeChatServer(() => chatPlan);
    speech = await startFakeSpeechServer(() => speechPlan);
    // The engines document the README shows: the embedded engine listens, the cascade answers.
    const engines = {
      engines: {
        listen: { kind: 'embedded', maxStreams: 2 },
        voicechat: {
          kind: 'cascade',
          listener: 'listen',
          languages: ['en'],
          chat: {
            url: chat.baseUrl,
            model: 'llama-3.2-3b-instruct',
            systemPrompt: 'You are Aria. Answer in one short sentence.',
            maxTokens: 80,
            temperature: 0.3,
            timeoutMs: 2000,
            apiKey: { env: 'CHAT_API_KEY' },
          },
          speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 2000 },
        },
      },
      models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
    };
    t = await startTestApp(databaseTargets()[0], {
      env: { ENGINES_JSON: JSON.stringify(engines), CHAT_API_KEY: 'sk-upstream-e2e-secret' },
    });
    ({ apiKey } = await t.newProject());
    const [ask, talk] = await fliteUtterances('awb', [
      'what time is it right now',
      'the quick brown fox jumped over the lazy dog',
    ]);
    const pcm = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    question = pcm(concatAudio([silentSamples(400), toSessionAudio(ask.clip), silentSamples(1600)]));
    interruption = pcm(toSessionAudio(talk.clip));
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await chat?.close();
    await speech?.close();
  });

  const stream = async (c: SocketClient, audio: Buffer) => {
    for (const chunk of chunks(audio, 160)) {
      c.send({ type: 'session.input_audio.append', audio: chunk.toString('base64') });
      await sleep(160);
    }
  };

  /** performance.now() at which each event of the last session arrived (text frames only: base64 audio). */
  let arrivals: number[] = [];

  const startSession = async () => {
    const c = await SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    arrivals = [];
    c.ws.on('message', () => arrivals.push(performance.now()));
    c.send({ type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } });
    await c.waitFor('session.started', 30_000);
    return c;
  };

  const turnEvent = (type: string) => (e: any) => e.type === 'session.turn.event' && e.event.type === type;

  it('hears a spoken question, asks the chat server with the conversation, and speaks its answer', async () => {
    chatPlan = { kind: 'reply', pieces: ['It is', ' half past', ' three.', ' Anything', ' else?'], delayMs: 20 };
    speechPlan = { msPerChar: 40, chunkMs: 100, chunkEveryMs: 10 };
    const c = await startSession();
    await stream(c, question);
    const heard = await c.waitFor((e) => e.type === 'session.input_transcript.delta' && e.done === true, 30_000);
    expect(heard.transcript).toMatch(/time/);
    const said = await c.waitFor((e) => e.type === 'session.output_transcript.delta' && e.done === true, 30_000);
    expect(said.transcript).toBe('It is half past three. Anything else?');
    const done = await c.waitFor(turnEvent('response_done'), 30_000);
    expect(done.event.interrupted).toBe(false);

    const request = chat.requests.at(-1)!;
    expect(request.headers.authorization).toBe('Bearer sk-upstream-e2e-secret');
    expect(chatBody(request)).toMatchObject({
      model: 'llama-3.2-3b-instruct',
      stream: true,
      max_tokens: 80,
      temperature: 0.3,
      messages: [
        { role: 'system', content: 'You are Aria. Answer in one short sentence.' },
        { role: 'user', content: heard.transcript },
      ],
    });
    expect(speech.requests.slice(-2).map((r) => (r.body as { input: string }).input)).toEqual([
      'It is half past three.',
      'Anything else?',
    ]);
    const audio = Buffer.concat(c.ofType('session.output_audio.delta').map((d) => Buffer.from(d.delta, 'base64')));
    const expectedMs = ('It is half past three.'.length + 'Anything else?'.length) * 40;
    expect(audio.length).toBe(expectedMs * 48);
    expect(rms(audio)).toBeGreaterThan(1000);
    // Words come with times inside the response's audio, on the session timeline.
    const words = c.ofType('session.output_transcript.delta').filter((e) => !e.done);
    expect(words.map((w) => w.delta).join('')).toBe('It is half past three. Anything else?');
    const frames = c.ofType('session.output_audio.delta');
    expect(words[0].start_ms).toBeGreaterThanOrEqual(frames[0].start_ms);
    expect(words.at(-1).end_ms).toBeLessThanOrEqual(frames.at(-1).end_ms);
    // Nothing of the upstream key reaches the client or the logs.
    expect(JSON.stringify(c.events)).not.toContain('sk-upstream-e2e-secret');
    expect(t.logs.join('')).not.toContain('sk-upstream-e2e-secret');
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
  }, 120_000);

  it('stops answering when the user barges in, and cancels the upstream requests', async () => {
    chatPlan = {
      kind: 'reply',
      pieces: ['Let me tell you a long story.', ...Array.from({ length: 60 }, (_, i) => ` Part ${i} goes on.`)],
      delayMs: 150,
    };
    speechPlan = { msPerChar: 60, chunkMs: 100, chunkEveryMs: 50 };
    const c = await startSession();
    await stream(c, question);
    const started = await c.waitFor(turnEvent('response_started'), 30_000);
    await c.waitFor('session.output_audio.delta', 30_000);
    const chatRequest = chat.requests.at(-1)!;
    await stream(c, interruption);
    const done = await c.waitFor(
      (e) => turnEvent('response_done')(e) && e.event.item_id === started.event.item_id,
      30_000,
    );
    expect(done.event.interrupted).toBe(true);
    const at = c.events.indexOf(done);
    const bargeIn = c.events.findLastIndex((e, i) => i < at && turnEvent('speech_started')(e));
    expect(bargeIn).toBeGreaterThan(-1);
    // Output stops at the barge-in: no audio of the response between speech start and its end, nor after.
    const audioAfter = c.events
      .slice(bargeIn + 1)
      .filter((e) => e.type === 'session.output_audio.delta' && e.item_id === started.event.item_id);
    expect(audioAfter).toHaveLength(0);
    await chat.waitUntil(() => chatRequest.aborted);
    // The engine saw speech start and, in the same turn of the loop, ended the response and closed
    // the generation; 200 ms is the bound, far above what a loaded machine adds.
    const detectedAt = arrivals[bargeIn];
    expect(arrivals[at] - detectedAt).toBeLessThan(200);
    expect(chatRequest.abortedAt! - detectedAt).toBeLessThan(200);
    await speech.waitUntil(() => speech.requests.every((r) => r.aborted || r.completed));
    expect(chatRequest.completed).toBe(false);
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
  }, 120_000);

  it('a chat server failing with 500, or not answering, fails that turn with an error event; the session answers the next one', async () => {
    chatPlan = { kind: 'error', status: 500, message: 'model crashed at /opt/llm', type: 'server_error', code: null };
    speechPlan = { msPerChar: 30, chunkMs: 100, chunkEveryMs: 10 };
    const c = await startSession();
    await stream(c, question);
    const error = await c.waitFor('error', 30_000);
    expect(error.error).toMatchObject({ code: 'engine_error' });
    expect(error.error.message).toMatch(/^chat_failed: .*HTTP 500/);
    expect(error.error.message).not.toMatch(/opt|crashed/);
    expect(c.events.filter(turnEvent('response_started'))).toHaveLength(0);

    // A chat server that never answers: the turn times out (chat.timeoutMs, 2 s here).
    chatPlan = { kind: 'hang' };
    const hung = chat.requests.length;
    await stream(c, question);
    const timeout = await c.waitFor((e) => e.type === 'error' && e.error.message.startsWith('chat_timeout'), 30_000);
    expect(timeout.error).toMatchObject({ code: 'engine_error' });
    await chat.waitUntil(() => chat.requests[hung]?.aborted === true);

    chatPlan = { kind: 'reply', pieces: ['I am back.'] };
    await stream(c, question);
    const said = await c.waitFor((e) => e.type === 'session.output_transcript.delta' && e.done === true, 30_000);
    expect(said.transcript).toBe('I am back.');
    // The failed turns' questions are still context: three user messages, merged into one.
    const messages = chatBody(chat.requests.at(-1)!).messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[1].content.split('\n')).toHaveLength(3);
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
  }, 120_000);
});
