/**
 * Turn detection's `idle_timeout_ms` and `interrupt_response: false` on a conversation session, driven
 * by the openai SDK's OpenAIRealtimeWS: the timeout prompts a silent user once the answer has played,
 * and speech over an answer that may not be interrupted is heard and answered without cutting it.
 */
import { chatBody } from '../../src/engines/cascade/testing/fake-chat-server';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { chunks, silence as silentPcm, sleep } from '../support/audio';
import OpenAI from 'openai';
import { openaiRealtimeClient, startConversationApp, type ConversationApp } from '../support/conversation-app';
import { fetchTrusting } from '../support/tls-and-words';

const NOTE = /^\(The user has said nothing for \d+ seconds\.\)$/;

describe('conversation turn detection: idle_timeout_ms and interrupt_response (OpenAIRealtimeWS)', () => {
  let app: ConversationApp;

  beforeAll(async () => {
    app = await startConversationApp();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('idle_timeout_ms: once the answer has played, silence for the timeout brings timeout_triggered and a prompt', async () => {
    app.msPerChar = 10;
    app.chatPlan = (request) =>
      NOTE.test(String(chatBody(request).messages.at(-1)?.content))
        ? { kind: 'reply', pieces: ['Are you', ' still there?'] }
        : { kind: 'reply', pieces: ['Hello', ' there.'] };
    const { rt, events, errors, next } = await openaiRealtimeClient(app, 'vendor-voicechat');
    await next('session.created');
    rt.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        audio: { input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 5000 } } },
      },
    });
    const updated = await next('session.updated');
    expect(updated.session.audio.input.turn_detection).toMatchObject({
      type: 'server_vad',
      idle_timeout_ms: 5000,
      interrupt_response: true,
    });
    // The microphone streams silence all along, as a phone line does.
    let streaming = true;
    const microphone = (async () => {
      while (streaming) {
        rt.send({ type: 'input_audio_buffer.append', audio: silentPcm(100).toString('base64') });
        await sleep(100);
      }
    })();
    try {
      rt.send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi.' }] },
      });
      rt.send({ type: 'response.create' });
      const answered = await next('response.done', 0, 20_000);
      const answeredAt = Date.now();
      expect(answered.response.status).toBe('completed');

      const timeout = await next('input_audio_buffer.timeout_triggered', 0, 20_000);
      const waited = Date.now() - answeredAt;
      expect(waited).toBeGreaterThanOrEqual(4500);
      expect(waited).toBeLessThan(9000);
      expect(timeout).toEqual({
        type: 'input_audio_buffer.timeout_triggered',
        event_id: expect.any(String),
        item_id: expect.any(String),
        audio_start_ms: expect.any(Number),
        audio_end_ms: expect.any(Number),
      });
      // The silent segment is the timeout's worth of the input audio (streamed in real time).
      expect(timeout.audio_end_ms - timeout.audio_start_ms).toBeGreaterThan(3500);
      expect(timeout.audio_end_ms - timeout.audio_start_ms).toBeLessThan(7000);
      const at = events.indexOf(timeout);
      expect(events.slice(at, at + 5).map((e) => e.type)).toEqual([
        'input_audio_buffer.timeout_triggered',
        'input_audio_buffer.committed',
        'conversation.item.added',
        'conversation.item.done',
        'response.created',
      ]);
      expect(events[at + 1]).toMatchObject({
        item_id: timeout.item_id,
        previous_item_id: answered.response.output[0].id,
      });
      expect(events[at + 2].item).toMatchObject({
        id: timeout.item_id,
        role: 'user',
        content: [{ type: 'input_audio', transcript: null }],
      });
      const prompt = await next('response.done', at, 20_000);
      expect(prompt.response).toMatchObject({
        status: 'completed',
        output: [{ content: [{ type: 'output_audio', transcript: 'Are you still there?' }] }],
      });
      expect(String(chatBody(app.chat.requests.at(-1)!).messages.at(-1)?.content)).toMatch(NOTE);
      expect(errors).toEqual([]);
    } finally {
      streaming = false;
      await microphone;
      rt.close();
    }
  }, 90_000);

  it('interrupt_response: false: speech over the answer leaves it playing to completed; the turn is answered after it', async () => {
    app.msPerChar = 80; // about 5 s of answer: the user talks over it
    app.chatPlan = (request) =>
      chatBody(request).messages.at(-1)?.role === 'user' &&
      /fox/.test(String(chatBody(request).messages.at(-1)?.content))
        ? { kind: 'reply', pieces: ['I heard you.'] }
        : { kind: 'reply', pieces: ['It is half past three, and the sun is shining over the hills today.'] };
    const [talk] = await fliteUtterances('awb', ['the quick brown fox jumped over the lazy dog']);
    const pcm = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    const { rt, events, errors, next } = await openaiRealtimeClient(app, 'vendor-voicechat');
    await next('session.created');
    rt.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        audio: { input: { turn_detection: { type: 'server_vad', interrupt_response: false } } },
      },
    });
    expect((await next('session.updated')).session.audio.input.turn_detection).toMatchObject({
      interrupt_response: false,
    });
    rt.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What time is it?' }] },
    });
    rt.send({ type: 'response.create' });
    const firstAudio = await next('response.output_audio.delta', 0, 20_000);

    for (const chunk of chunks(pcm(concatAudio([toSessionAudio(talk.clip), silence(1500)])), 200)) {
      rt.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') });
      await sleep(150);
    }
    const started = await next('input_audio_buffer.speech_started', 0, 20_000);
    const done = await next('response.done', 0, 30_000);
    expect(done.response).toMatchObject({ id: firstAudio.response_id, status: 'completed' });
    const startedAt = events.indexOf(started);
    const doneAt = events.indexOf(done);
    expect(startedAt).toBeLessThan(doneAt);
    // The voice went on after the user started to speak, to the end of the answer.
    const audioAfter = events
      .slice(startedAt, doneAt)
      .filter((e) => e.type === 'response.output_audio.delta' && e.response_id === done.response.id);
    expect(audioAfter.length).toBeGreaterThan(5);
    expect(done.response.output[0]).toMatchObject({
      status: 'completed',
      content: [{ transcript: 'It is half past three, and the sun is shining over the hills today.' }],
    });
    // The user's speech was still heard: committed and transcribed as an item of its own.
    const transcribed = await next('conversation.item.input_audio_transcription.completed', startedAt, 20_000);
    expect(transcribed.item_id).toBe(started.item_id);
    expect(transcribed.transcript).toMatch(/fox/);
    expect(
      events.find((e) => e.type === 'input_audio_buffer.committed' && e.item_id === started.item_id),
    ).toBeDefined();
    // Its turn ended while the answer played (one response at a time): it is answered once that is done.
    const second = await next('response.created', doneAt, 20_000);
    expect(second.response.id).not.toBe(done.response.id);
    const secondDone = await next('response.done', events.indexOf(second), 20_000);
    expect(secondDone.response.status).toBe('completed');
    expect(errors).toEqual([]);
    rt.close();
  }, 90_000);

  it("takes a realtime client secret's interrupt_response and idle_timeout_ms from the start; a live secret refuses the timeout", async () => {
    app.msPerChar = 10;
    app.chatPlan = () => ({ kind: 'reply', pieces: ['Anyone there?'] });
    const server = new OpenAI({ apiKey: app.apiKey, baseURL: `${app.t.baseUrl}/v1`, fetch: fetchTrusting(app.ca) });
    const turnDetection = { type: 'server_vad' as const, idle_timeout_ms: 5000, interrupt_response: false };
    const secret = await server.realtime.clientSecrets.create({
      session: { type: 'realtime', model: 'gpt-realtime', audio: { input: { turn_detection: turnDetection } } },
    });
    expect(secret.session.audio?.input?.turn_detection).toMatchObject(turnDetection);
    const { rt, events, errors, next } = await openaiRealtimeClient(app, 'gpt-realtime', secret.value);
    const created = await next('session.created');
    const createdAt = Date.now();
    expect(created.session.audio.input.turn_detection).toMatchObject(turnDetection);
    // Nothing was said or answered since the session started: the count started with it.
    const timeout = await next('input_audio_buffer.timeout_triggered', 0, 15_000);
    expect(Date.now() - createdAt).toBeGreaterThanOrEqual(4500);
    const prompt = await next('response.done', events.indexOf(timeout), 20_000);
    expect(prompt.response.status).toBe('completed');
    expect(errors).toEqual([]);
    rt.close();

    const live = await fetchTrusting(app.ca)(`${app.t.baseUrl}/v1/live/client_secrets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        session: { type: 'live', audio: { input: { turn_detection: { idle_timeout_ms: 5000 } } } },
      }),
    });
    expect(live.status).toBe(400);
    expect(await live.json()).toMatchObject({
      error: { code: 'invalid_parameter', param: 'session.audio.input.turn_detection.idle_timeout_ms' },
    });
  }, 60_000);
});
