import OpenAI from 'openai';
import { startFakeChatServer, type ChatPlan } from './fake-chat-server';
import { startFakeSpeechServer } from './fake-speech-server';
import type { RecordingServer } from './recording-server';

/**
 * The protocol fakes checked against the official `openai` SDK: what the SDK reads from them is what
 * a real OpenAI-compatible server would give it, so the cascade's tests against them mean something.
 */
describe('the chat and speech fakes, read by the openai SDK', () => {
  let chat: RecordingServer;
  let speech: RecordingServer;
  let plan: ChatPlan;

  beforeAll(async () => {
    chat = await startFakeChatServer(() => plan);
    speech = await startFakeSpeechServer(() => ({ msPerChar: 20, chunkMs: 100, chunkEveryMs: 1 }));
  });
  afterAll(async () => {
    await chat.close();
    await speech.close();
  });

  it('streams chat completion chunks the SDK assembles into the answer', async () => {
    plan = { kind: 'reply', pieces: ['Hello', ' there', '.'], splitBytes: 5 };
    const client = new OpenAI({ baseURL: chat.baseUrl, apiKey: 'sk-test', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'llama',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    const finishes: Array<string | null> = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finishes.push(chunk.choices[0]?.finish_reason ?? null);
    }
    expect(text).toBe('Hello there.');
    expect(finishes.at(-1)).toBe('stop');
  });

  it('answers errors the SDK reports with their status, type and code', async () => {
    plan = { kind: 'error', status: 500, message: 'out of memory', type: 'server_error', code: 'oom' };
    const client = new OpenAI({ baseURL: chat.baseUrl, apiKey: 'sk-test', maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: 'llama', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 500, type: 'server_error', code: 'oom' });
  });

  it('streams pcm the SDK returns as the speech body', async () => {
    const client = new OpenAI({ baseURL: speech.baseUrl, apiKey: 'sk-test', maxRetries: 0 });
    const response = await client.audio.speech.create({
      model: 'kokoro',
      voice: 'alloy',
      input: 'Hello.',
      response_format: 'pcm',
    });
    const pcm = Buffer.from(await response.arrayBuffer());
    expect(pcm.length).toBe('Hello.'.length * 20 * 48);
  });
});
