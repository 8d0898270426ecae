/**
 * Conversation sessions on /v1/realtime driven by the official clients, as an agent written for
 * OpenAI runs against the service: the Agents SDK's RealtimeSession with a function tool, and the
 * openai SDK's OpenAIRealtimeWS (wss only: the service serves TLS with a certificate made for the
 * test). vendor-voicechat is a cascade whose chat and speech upstreams are fake servers speaking
 * the public chat-completions (streamed, with tool calls) and audio/speech formats.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAIRealtimeWebSocket, RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { WebSocket } from 'ws';
import { z } from 'zod';
import {
  chatBody,
  FAKE_USAGE,
  startFakeChatServer,
  type ChatPlan,
} from '../../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../../src/engines/cascade/testing/fake-speech-server';
import type { RecordedRequest, RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { fetchTrusting, pemPair } from '../support/tls-and-words';
import { waitFor } from '../support/wait-for';

type Event = { type: string; [key: string]: any };

describe('conversation sessions on /v1/realtime with the official SDKs', () => {
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
        listen: { kind: 'embedded', maxStreams: 3 },
        voicechat: {
          kind: 'cascade',
          listener: 'listen',
          languages: ['en'],
          chat: {
            url: chat.baseUrl,
            model: 'llama-3.2-3b-instruct',
            systemPrompt: 'You are Aria.',
            maxTokens: 80,
            temperature: 0.3,
            timeoutMs: 5000,
          },
          speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
        },
      },
      models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
    };
    dir = mkdtempSync(join(tmpdir(), 'continuum-conv-'));
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
    chatPlan = (request) =>
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
    expect(await rest(`/v1/sessions/${sessionId}`)).toMatchObject({
      type: 'live',
      model: 'vendor-voicechat',
      close_reason: 'close_requested',
    });
  }, 60_000);
});
