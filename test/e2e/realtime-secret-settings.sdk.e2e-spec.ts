/**
 * A browser agent configured entirely by its client secret, with the official openai SDK: the server
 * that holds the API key creates the secret with the agent's instructions and a function tool, and
 * the socket opened with the secret alone starts with them and calls the tool. vendor-voicechat is
 * a cascade on fake chat and speech servers, as in realtime-conversation.sdk.e2e-spec.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { chatBody, startFakeChatServer, type ChatPlan } from '../../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../../src/engines/cascade/testing/fake-speech-server';
import type { RecordedRequest, RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { fetchTrusting, pemPair } from '../support/tls-and-words';
import { waitFor } from '../support/wait-for';

type Event = { type: string; [key: string]: any };

const INSTRUCTIONS = 'You are Breeze, a weather agent. Answer briefly.';
const GET_WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('a realtime client secret that carries the agent (openai SDK)', () => {
  let t: TestApp;
  let apiKey: string;
  let dir: string;
  let ca: Buffer;
  let chat: RecordingServer;
  let speech: RecordingServer;
  let chatPlan: (request: RecordedRequest) => ChatPlan;

  beforeAll(async () => {
    chat = await startFakeChatServer((request) => chatPlan(request));
    speech = await startFakeSpeechServer(() => ({ msPerChar: 10, chunkMs: 100, chunkEveryMs: 5 }));
    const engines = {
      engines: {
        listen: { kind: 'embedded', maxStreams: 2 },
        voicechat: {
          kind: 'cascade',
          listener: 'listen',
          languages: ['en'],
          chat: { url: chat.baseUrl, model: 'llama-3.2-3b-instruct', systemPrompt: 'You are Aria.', timeoutMs: 5000 },
          speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
        },
      },
      models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
    };
    dir = mkdtempSync(join(tmpdir(), 'continuum-secret-'));
    const { cert, key } = pemPair(dir);
    ca = readFileSync(cert);
    t = await startTestApp(databaseTargets()[0], {
      env: { ENGINES_JSON: JSON.stringify(engines), TLS_CERT_FILE: cert, TLS_KEY_FILE: key },
    });
    ({ apiKey } = await t.newProject());
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await chat?.close();
    await speech?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${t.baseUrl}/v1`, fetch: fetchTrusting(ca) });

  it('starts the session with the secret’s instructions and tool, and a tool call goes round', async () => {
    chatPlan = (request) =>
      chatBody(request).messages.some((m) => m.role === 'tool')
        ? { kind: 'reply', pieces: ['It is', ' sunny in', ' Paris.'] }
        : {
            kind: 'tool_calls',
            calls: [{ id: 'call_weather_1', name: 'get_weather', argumentPieces: ['{"city":', '"Paris"}'] }],
          };
    const secret = await client(apiKey).realtime.clientSecrets.create({
      expires_after: { anchor: 'created_at', seconds: 60 },
      session: {
        type: 'realtime',
        model: 'vendor-voicechat',
        instructions: INSTRUCTIONS,
        tools: [GET_WEATHER],
        tool_choice: 'auto',
        output_modalities: ['text'],
      },
    });
    expect(secret.value).toMatch(/^ek_/);
    expect(secret.session).toMatchObject({
      object: 'realtime.session',
      model: 'vendor-voicechat',
      instructions: INSTRUCTIONS,
      tools: [GET_WEATHER],
      tool_choice: 'auto',
      output_modalities: ['text'],
      max_output_tokens: 'inf',
    });

    // The browser's side: the secret only, and no configuration of its own.
    const rt = new OpenAIRealtimeWS({ model: 'vendor-voicechat', options: { ca } }, client(secret.value));
    const events: Event[] = [];
    rt.on('event', (event) => events.push(event as Event));
    rt.on('error', () => undefined);
    const next = async (type: string, from = 0): Promise<Event> => {
      let found: Event | undefined;
      await waitFor(async () => (found = events.slice(from).find((e) => e.type === type)) !== undefined, 15_000);
      return found!;
    };
    const created = await next('session.created');
    expect(created.session).toMatchObject({
      id: (secret.session as { id: string }).id,
      instructions: INSTRUCTIONS,
      tools: [GET_WEATHER],
      tool_choice: 'auto',
      output_modalities: ['text'],
    });

    rt.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
    });
    rt.send({ type: 'response.create' });
    const call = (await next('response.done')).response;
    expect(call).toMatchObject({
      status: 'completed',
      output: [{ type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
    const ask = chatBody(chat.requests.at(-1)!);
    expect(ask.messages[0]).toEqual({ role: 'system', content: INSTRUCTIONS });
    expect(ask.tools).toEqual([
      {
        type: 'function',
        function: expect.objectContaining({ name: 'get_weather', parameters: GET_WEATHER.parameters }),
      },
    ]);

    const from = events.length;
    rt.send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: call.output[0].call_id, output: 'sunny in Paris' },
    });
    rt.send({ type: 'response.create' });
    const answer = (await next('response.done', from)).response;
    expect(answer.output[0].content[0].text).toBe('It is sunny in Paris.');
    expect(chatBody(chat.requests.at(-1)!).messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_weather_1',
      content: 'sunny in Paris',
    });

    // The client may still change what the secret set, as on OpenAI.
    const before = events.length;
    rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Be terse.', tools: [] } });
    expect((await next('session.updated', before)).session).toMatchObject({ instructions: 'Be terse.', tools: [] });
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    rt.close();
    // Neither the secret nor the agent it carried reached a log line.
    expect(t.logs.join('')).not.toContain(INSTRUCTIONS);
    expect(t.logs.join('')).not.toContain(secret.value);
  }, 90_000);

  it('refuses a setting the socket would refuse with a 422 at its field, and issues no secret', async () => {
    const sessions = () =>
      fetchTrusting(ca)(`${t.baseUrl}/v1/sessions?limit=100`, { headers: { authorization: `Bearer ${apiKey}` } })
        .then((r) => r.json() as Promise<{ data: unknown[] }>)
        .then((list) => list.data.length);
    const before = await sessions();
    const refused = await client(apiKey)
      .realtime.clientSecrets.create({
        session: { type: 'realtime', model: 'vendor-voicechat', tools: [{ ...GET_WEATHER, name: 'get weather!' }] },
      })
      .then(
        () => null,
        (error: InstanceType<typeof OpenAI.APIError>) => error,
      );
    expect(refused?.status).toBe(422);
    expect((refused?.error as { detail: unknown[] }).detail).toEqual([
      expect.objectContaining({ loc: ['body', 'session', 'tools', 0, 'name'], type: 'invalid_value' }),
    ]);
    expect(await sessions()).toBe(before);
  }, 30_000);
});
