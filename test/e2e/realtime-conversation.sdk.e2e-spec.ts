/**
 * Conversation sessions on /v1/realtime driven by the official clients, as an agent written for
 * OpenAI runs against the service: the Agents SDK's RealtimeSession with a function tool, and the
 * openai SDK's OpenAIRealtimeWS (wss only: the service serves TLS with a certificate made for the
 * test). vendor-voicechat is a cascade whose chat and speech upstreams are fake servers speaking
 * the public chat-completions (streamed, with tool calls) and audio/speech formats.
 */
import { OpenAIRealtimeWebSocket, RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import OpenAI from 'openai';
import { WebSocket } from 'ws';
import { z } from 'zod';
import { chatBody, FAKE_USAGE } from '../../src/engines/cascade/testing/fake-chat-server';
import type { RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { chunks, sleep } from '../support/audio';
import { openaiRealtimeClient, startConversationApp, type ConversationApp } from '../support/conversation-app';
import type { TestApp } from '../support/test-app';
import { fetchTrusting } from '../support/tls-and-words';
import { waitFor } from '../support/wait-for';

type Event = { type: string; [key: string]: any };

describe('conversation sessions on /v1/realtime with the official SDKs', () => {
  let app: ConversationApp;
  let t: TestApp;
  let apiKey: string;
  let ca: Buffer;
  let chat: RecordingServer;

  beforeAll(async () => {
    app = await startConversationApp();
    ({ t, apiKey, ca, chat } = app);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  afterEach(() => {
    app.msPerChar = 10;
  });

  const wsBase = () => t.baseUrl.replace(/^https/, 'wss');
  const rest = (path: string) =>
    fetchTrusting(ca)(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } }).then(
      (r) => r.json() as Promise<Record<string, any>>,
    );

  /** The Agents SDK's transport over the ws package, trusting the test's certificate. */
  const agentsTransport = (key = apiKey) =>
    new OpenAIRealtimeWebSocket({
      createWebSocket: async ({ url }) => new WebSocket(url, { ca, headers: { authorization: `Bearer ${key}` } }),
    });

  it('runs an Agents SDK agent: a text turn that calls a function tool, and the answer after its output', async () => {
    app.chatPlan = (request) =>
      chatBody(request).messages.some((m) => m.role === 'tool')
        ? { kind: 'reply', pieces: ['It is', ' sunny in', ' Paris.'], delayMs: 5 }
        : {
            kind: 'tool_calls',
            calls: [{ id: 'call_weather_1', name: 'get_weather', argumentPieces: ['{"city":', '"Paris"}'] }],
          };
    const calls: unknown[] = [];
    const getWeather = tool({
      name: 'get_weather',
      description: 'The weather for a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        calls.push(city);
        return `sunny in ${city}`;
      },
    });
    const agent = new RealtimeAgent({
      name: 'Breeze',
      instructions: 'You are Breeze. Answer briefly.',
      tools: [getWeather],
    });
    const transport = agentsTransport();
    const events: Event[] = [];
    transport.on('*', (event: Event) => events.push(event));
    const session = new RealtimeSession(agent, { transport, model: 'vendor-voicechat' });
    const errors: unknown[] = [];
    session.on('error', (error) => errors.push(error));
    await session.connect({ apiKey, url: `${wsBase()}/v1/realtime?model=vendor-voicechat` });

    session.sendMessage('What is the weather in Paris?');
    await waitFor(async () => events.filter((e) => e.type === 'response.done').length >= 2, 20_000);
    const [first, second] = events.filter((e) => e.type === 'response.done').map((e) => e.response);
    expect(calls).toEqual(['Paris']);
    expect(first).toMatchObject({ status: 'completed', output: [{ type: 'function_call', name: 'get_weather' }] });
    expect(second).toMatchObject({
      status: 'completed',
      output: [
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_audio', transcript: 'It is sunny in Paris.' }],
        },
      ],
      usage: { input_tokens: FAKE_USAGE.prompt_tokens, output_tokens: FAKE_USAGE.completion_tokens },
    });
    expect(errors).toEqual([]);

    // The model saw the agent's instructions, its tool, the call and the tool's output.
    const [ask, answer] = chat.requests.slice(-2).map(chatBody);
    expect(ask.tools).toEqual([
      {
        type: 'function',
        function: expect.objectContaining({ name: 'get_weather', description: 'The weather for a city' }),
      },
    ]);
    expect(ask.messages).toEqual([
      { role: 'system', content: 'You are Breeze. Answer briefly.' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ]);
    expect(answer.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_weather_1', content: 'sunny in Paris' },
    ]);
    // The SDK's own view of the conversation holds the spoken answer.
    const said = session.history.filter((item) => item.type === 'message' && item.role === 'assistant');
    expect(JSON.stringify(said)).toContain('It is sunny in Paris.');
    // Audio went out as pcm16 in base64, from the speech server's voice.
    expect(events.filter((e) => e.type === 'response.output_audio.delta').length).toBeGreaterThan(0);

    const sessionId = events.find((e) => e.type === 'session.created')!.session.id;
    session.close();
    await waitFor(async () => (await rest(`/v1/sessions/${sessionId}`)).status === 'closed', 10_000);
    const closed = await rest(`/v1/sessions/${sessionId}`);
    expect(closed).toMatchObject({
      type: 'live',
      model: 'vendor-voicechat',
      close_reason: 'close_requested',
    });

    // The tokens its responses reported are kept as detail of the session, equal in every view.
    const reported = events
      .filter((e) => e.type === 'response.done')
      .reduce(
        (sum, e) => ({
          input_tokens: sum.input_tokens + e.response.usage.input_tokens,
          output_tokens: sum.output_tokens + e.response.usage.output_tokens,
        }),
        { input_tokens: 0, output_tokens: 0 },
      );
    expect(reported).toEqual({
      input_tokens: 2 * FAKE_USAGE.prompt_tokens,
      output_tokens: 2 * FAKE_USAGE.completion_tokens,
    });
    expect(closed.usage.tokens).toEqual(reported);
    const listed = (await rest('/v1/sessions?limit=100')).data.find((s: { id: string }) => s.id === sessionId);
    expect(listed.usage).toEqual(closed.usage);
    const exported = (await rest('/v1/usage/export')).data.find(
      (s: { session_id: string }) => s.session_id === sessionId,
    );
    expect(exported).toMatchObject({ frames: closed.usage.frames, cost_usd: closed.usage.cost_usd, tokens: reported });
  }, 60_000);

  it("answers the Agents SDK's spoken turn with its default configuration (semantic_vad, pcm 24 kHz, an OpenAI transcriber)", async () => {
    app.chatPlan = () => ({ kind: 'reply', pieces: ['It is noon.'] });
    const [ask] = await fliteUtterances('awb', ['what time is it right now']);
    const audio = Buffer.from(concatAudio([silence(300), toSessionAudio(ask.clip), silence(2500)]).buffer);
    const transport = agentsTransport();
    const events: Event[] = [];
    transport.on('*', (event: Event) => events.push(event));
    const session = new RealtimeSession(new RealtimeAgent({ name: 'Clock', instructions: 'Tell the time.' }), {
      transport,
      model: 'vendor-voicechat',
    });
    await session.connect({ apiKey, url: `${wsBase()}/v1/realtime?model=gpt-realtime` });
    for (const chunk of chunks(audio, 200)) {
      session.sendAudio(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer);
      await sleep(150);
    }
    await waitFor(async () => events.some((e) => e.type === 'response.done'), 20_000);
    const updated = events.filter((e) => e.type === 'session.updated').at(-1)!;
    expect(updated.session.audio.input.turn_detection).toMatchObject({ type: 'semantic_vad', create_response: true });
    const heard = events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!;
    expect(heard.transcript).toMatch(/time/);
    expect(events.find((e) => e.type === 'response.done')!.response).toMatchObject({
      status: 'completed',
      output: [{ content: [{ type: 'output_audio', transcript: 'It is noon.' }] }],
    });
    expect(chatBody(chat.requests.at(-1)!).messages).toEqual([
      { role: 'system', content: 'Tell the time.' },
      { role: 'user', content: heard.transcript },
    ]);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    session.close();
  }, 60_000);

  const openaiClient = (model = 'gpt-realtime', key = apiKey) => openaiRealtimeClient(app, model, key);

  it('OpenAIRealtimeWS via an alias: text answers with per-response instructions, an out-of-band answer, items, refusals', async () => {
    app.chatPlan = () => ({ kind: 'reply', pieces: ['Fine', ', thanks.'], delayMs: 150 });
    const { rt, events, errors, next } = await openaiClient('gpt-realtime');
    expect(rt.url.toString()).toMatch(/\/v1\/realtime\?model=gpt-realtime$/);
    const created = await next('session.created');
    expect(created.session).toMatchObject({
      type: 'realtime',
      model: 'vendor-voicechat',
      output_modalities: ['audio'],
    });

    rt.send({
      type: 'session.update',
      session: { type: 'realtime', instructions: 'You are terse.', output_modalities: ['text'], max_output_tokens: 60 },
    });
    const updated = await next('session.updated');
    expect(updated.session).toMatchObject({
      instructions: 'You are terse.',
      output_modalities: ['text'],
      max_output_tokens: 60,
    });

    // Refusals: OpenAI-shaped errors naming the parameter, and the session goes on.
    const refused: [object, string, string][] = [
      [
        { type: 'session.update', session: { type: 'realtime', prompt: { id: 'pmpt_1' } } },
        'unsupported_parameter',
        'session.prompt',
      ],
      [{ type: 'session.update', session: { type: 'transcription' } }, 'invalid_value', 'session.type'],
      [
        { type: 'session.update', session: { audio: { output: { speed: 1.5 } } } },
        'unsupported_parameter',
        'session.audio.output.speed',
      ],
      [
        { type: 'session.update', session: { audio: { output: { voice: 'alloy' } } } },
        'invalid_value',
        'session.audio.output.voice',
      ],
      [
        { type: 'session.update', session: { tools: [{ type: 'mcp', server_label: 'x' }] } },
        'invalid_value',
        'session.tools[0].type',
      ],
      [
        {
          type: 'session.update',
          session: { audio: { input: { turn_detection: { type: 'semantic_vad', idle_timeout_ms: 5000 } } } },
        },
        'unsupported_parameter',
        'session.audio.input.turn_detection.idle_timeout_ms',
      ],
      [
        {
          type: 'conversation.item.create',
          item: { type: 'message', role: 'user', content: [{ type: 'input_image', image_url: 'x' }] },
        },
        'invalid_value',
        'item.content[0].type',
      ],
      [
        { type: 'conversation.item.truncate', item_id: 'nope', content_index: 0, audio_end_ms: 10 },
        'item_not_found',
        'item_id',
      ],
      [{ type: 'response.cancel' }, 'response_cancel_not_active', ''],
      [{ type: 'output_audio_buffer.clear' }, 'unsupported_event', 'type'],
    ];
    for (const [event, code, param] of refused) {
      const at = events.length;
      rt.send({ ...(event as any), event_id: `evt_${code}` });
      const error = await next('error', at);
      expect([error.error.code, error.error.param ?? '', error.error.event_id]).toEqual([code, param, `evt_${code}`]);
      expect(error.error.type).toBe('invalid_request_error');
    }

    rt.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How are you?' }] },
    });
    const added = await next('conversation.item.added');
    expect(added.item).toMatchObject({ object: 'realtime.item', type: 'message', role: 'user', status: 'completed' });

    let at = events.length;
    rt.send({ type: 'response.create', event_id: 'evt_r1', response: { instructions: 'Answer in two words.' } });
    const responseCreated = await next('response.created', at);
    expect(responseCreated.response).toMatchObject({ status: 'in_progress', output_modalities: ['text'] });
    // One response at a time, as OpenAI: the second is refused with its event id.
    rt.send({ type: 'response.create', event_id: 'evt_r2' });
    const busy = await next('error', at);
    expect(busy.error).toMatchObject({ code: 'conversation_already_has_active_response', event_id: 'evt_r2' });
    const done = await next('response.done', at);
    expect(done.response).toMatchObject({
      status: 'completed',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fine, thanks.' }] }],
      usage: { total_tokens: FAKE_USAGE.total_tokens },
    });
    const kinds = events
      .slice(at)
      .map((e) => e.type)
      .filter((type) => type !== 'error');
    expect(kinds).toEqual([
      'response.created',
      'rate_limits.updated',
      'response.output_item.added',
      'conversation.item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'conversation.item.done',
      'response.output_item.done',
      'response.done',
    ]);
    expect(chatBody(chat.requests.at(-1)!)).toMatchObject({
      max_tokens: 60,
      messages: [
        { role: 'system', content: 'Answer in two words.' },
        { role: 'user', content: 'How are you?' },
      ],
    });
    expect(chatBody(chat.requests.at(-1)!).tools).toBeUndefined();

    // Out of band: its own input, not added to the conversation, its metadata echoed.
    at = events.length;
    rt.send({
      type: 'response.create',
      response: {
        conversation: 'none',
        metadata: { purpose: 'classify' },
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Classify: hello' }] }],
      },
    });
    const oob = await next('response.done', at);
    expect(oob.response).toMatchObject({
      conversation_id: null,
      metadata: { purpose: 'classify' },
      status: 'completed',
    });
    expect(events.slice(at).some((e) => e.type === 'conversation.item.added')).toBe(false);
    expect(chatBody(chat.requests.at(-1)!).messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Classify: hello' },
    ]);

    // Items: retrieve and delete what is there; the answer above is its own item.
    const answerId = done.response.output[0].id;
    at = events.length;
    rt.send({ type: 'conversation.item.retrieve', item_id: answerId });
    expect((await next('conversation.item.retrieved', at)).item).toMatchObject({ id: answerId, role: 'assistant' });
    rt.send({ type: 'conversation.item.delete', item_id: answerId });
    expect(await next('conversation.item.deleted', at)).toMatchObject({ item_id: answerId });
    expect(errors.map((e) => e.code).sort()).toEqual(
      [...refused.map(([, code]) => code), 'conversation_already_has_active_response'].sort(),
    );
    rt.close();
  }, 60_000);

  it('cancels an answer that is playing: response.done cancelled, no audio after it, and truncate keeps what was heard', async () => {
    app.chatPlan = () => ({
      kind: 'reply',
      pieces: ['One two three four five six seven eight nine ten.', ' Eleven twelve.'],
    });
    const { rt, events, next } = await openaiClient('vendor-voicechat');
    await next('session.created');
    rt.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Count.' }] },
    });
    rt.send({ type: 'response.create' });
    const firstAudio = await next('response.output_audio.delta');
    await sleep(300);
    rt.send({ type: 'response.cancel', response_id: firstAudio.response_id });
    const done = await next('response.done');
    expect(done.response).toMatchObject({
      status: 'cancelled',
      status_details: { type: 'cancelled', reason: 'client_cancelled' },
    });
    const doneAt = events.indexOf(done);
    await sleep(500);
    expect(events.slice(doneAt).filter((e) => e.type.startsWith('response.output_audio'))).toEqual([]);
    expect(events.slice(0, doneAt).map((e) => e.type)).toContain('response.output_audio.done');

    rt.send({ type: 'conversation.item.truncate', item_id: firstAudio.item_id, content_index: 0, audio_end_ms: 150 });
    expect(await next('conversation.item.truncated')).toMatchObject({ item_id: firstAudio.item_id, audio_end_ms: 150 });
    rt.send({ type: 'conversation.item.retrieve', item_id: firstAudio.item_id });
    const heard = (await next('conversation.item.retrieved')).item;
    expect(heard.status).toBe('incomplete');
    const transcript: string = heard.content[0].transcript;
    expect('One two three four five six seven eight nine ten.'.startsWith(transcript)).toBe(true);
    expect(transcript.split(' ').length).toBeLessThan(10);
    rt.close();
  }, 60_000);

  it('answers a spoken turn on its own (flite speech in), and the user speaking over the answer cuts it', async () => {
    app.chatPlan = () => ({
      kind: 'reply',
      pieces: ['It is half past three, and the sun is shining over the hills today.'],
    });
    app.msPerChar = 80; // about 5 s of answer: the user talks over it
    const [ask, talk] = await fliteUtterances('awb', [
      'what time is it right now',
      'the quick brown fox jumped over the lazy dog',
    ]);
    const pcm = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    const { rt, events, next } = await openaiClient('vendor-voicechat');
    await next('session.created');
    const stream = async (audio: Buffer) => {
      for (const chunk of chunks(audio, 200)) {
        rt.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') });
        await sleep(150);
      }
    };
    await stream(pcm(concatAudio([silence(300), toSessionAudio(ask.clip), silence(1200)])));
    const transcribed = await next('conversation.item.input_audio_transcription.completed', 0, 20_000);
    expect(transcribed.transcript).toMatch(/time/);
    const firstAudio = await next('response.output_audio.delta', 0, 20_000);
    const kinds = events.map((e) => e.type);
    for (const type of [
      'input_audio_buffer.speech_started',
      'input_audio_buffer.speech_stopped',
      'input_audio_buffer.committed',
      'response.created',
    ]) {
      expect(kinds).toContain(type);
    }
    const userItem = events.find((e) => e.type === 'conversation.item.added' && e.item.role === 'user')!.item;
    expect(userItem.content).toEqual([{ type: 'input_audio', transcript: null }]);
    expect(chatBody(chat.requests.at(-1)!).messages.at(-1)).toEqual({ role: 'user', content: transcribed.transcript });

    // Barge-in: the answer plays for seconds; the user talks over it.
    await stream(pcm(concatAudio([toSessionAudio(talk.clip), silence(600)])));
    const cut = await next('response.done', 0, 20_000);
    expect(cut.response).toMatchObject({
      id: firstAudio.response_id,
      status: 'cancelled',
      status_details: { reason: 'turn_detected' },
    });
    const cutAt = events.indexOf(cut);
    expect(
      events.slice(cutAt).filter((e) => e.type === 'response.output_audio.delta' && e.response_id === cut.response.id),
    ).toEqual([]);
    rt.close();
  }, 90_000);

  it('opens a conversation with a client secret of type "realtime", made with the SDK; transcription stays the default', async () => {
    app.chatPlan = () => ({ kind: 'reply', pieces: ['Hello from the secret.'] });
    const server = new OpenAI({ apiKey, baseURL: `${t.baseUrl}/v1`, fetch: fetchTrusting(ca) });
    const secret = await server.realtime.clientSecrets.create({
      expires_after: { anchor: 'created_at', seconds: 60 },
      session: {
        type: 'realtime',
        model: 'gpt-realtime',
        audio: {
          input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'gpt-4o-mini-transcribe' } },
          output: { voice: 'aria' as 'alloy' },
        },
      },
    });
    expect(secret.value).toMatch(/^ek_/);
    expect(secret.session).toMatchObject({ object: 'realtime.session', type: 'live', model: 'vendor-voicechat' });
    const sessionId = (secret.session as { id: string }).id;

    // The browser's side: only the secret, and the agent's own configuration sent on connect.
    const { rt, events, next } = await openaiClient('gpt-realtime', secret.value);
    expect((await next('session.created')).session).toMatchObject({
      id: sessionId,
      type: 'realtime',
      model: 'vendor-voicechat',
    });
    rt.send({
      type: 'session.update',
      session: { type: 'realtime', instructions: 'Greet.', output_modalities: ['text'] },
    });
    await next('session.updated');
    rt.send({ type: 'response.create' });
    expect((await next('response.done')).response.output[0].content[0].text).toBe('Hello from the secret.');
    expect(chatBody(chat.requests.at(-1)!).messages[0]).toEqual({ role: 'system', content: 'Greet.' });
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    rt.close();
    await waitFor(async () => (await rest(`/v1/sessions/${sessionId}`)).status === 'closed', 10_000);
    expect(await rest(`/v1/sessions/${sessionId}`)).toMatchObject({ type: 'live', close_reason: 'close_requested' });

    // Without type "realtime" the endpoint still makes transcription sessions.
    const plain = await server.realtime.clientSecrets.create({ session: { type: 'transcription' } });
    expect(plain.session).toMatchObject({ object: 'realtime.transcription_session', type: 'transcription' });
    // "realtime" is the realtime path's name; the live path refuses it.
    const live = await fetchTrusting(ca)(`${t.baseUrl}/v1/live/client_secrets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session: { type: 'realtime' } }),
    });
    expect(live.status).toBe(400);
    expect(await live.json()).toMatchObject({ error: { code: 'invalid_parameter', param: 'session.type' } });
  }, 60_000);
});
