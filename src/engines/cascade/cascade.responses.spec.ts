import type { EngineStreamConfig, ResponseEvent, ResponseRequest } from '../../session-core';
import { EventLog } from '../embedded/testing/stream-driver';
import { ScriptedEngine } from '../scripted/scripted.engine';
import { createCascadeEngine } from './cascade.engine';
import { cascadeEngineOptions, parseCascadeSettings } from './cascade.options';
import { chatBody, FAKE_USAGE, startFakeChatServer, type ChatPlan } from './testing/fake-chat-server';
import { startFakeSpeechServer } from './testing/fake-speech-server';
import type { RecordingServer } from './testing/recording-server';

/**
 * The cascade in a conversation session: it answers only when asked (respond()), with the
 * request's instructions, messages, tools and limits, through fake chat and speech servers on real
 * sockets; tool calls, text, usage and the end go to the request's sink, the voice to the stream's.
 */
const CONFIG: EngineStreamConfig = {
  sessionId: 'sess_conv',
  type: 'live',
  model: 'vendor-voicechat',
  language: 'en',
  voice: 'aria',
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 400, prefixPaddingMs: 0 },
  conversation: true,
};

const request = (overrides: Partial<ResponseRequest> = {}): ResponseRequest => ({
  responseId: 'resp_1',
  itemId: 'item_answer',
  instructions: 'You are terse.',
  messages: [{ role: 'user', content: 'What time is it?' }],
  tools: [{ name: 'clock', description: 'The time', parameters: { type: 'object', properties: {} } }],
  toolChoice: 'auto',
  audio: true,
  maxOutputTokens: 30,
  ...overrides,
});

describe('CascadeEngine responses (conversation sessions)', () => {
  let chat: RecordingServer;
  let speech: RecordingServer;
  let chatPlan: ChatPlan;

  beforeAll(async () => {
    chat = await startFakeChatServer(() => chatPlan);
    speech = await startFakeSpeechServer(() => ({ msPerChar: 20, chunkMs: 100, chunkEveryMs: 5 }));
  });
  afterAll(async () => {
    await chat.close();
    await speech.close();
  });

  const open = async () => {
    const settings = parseCascadeSettings({
      chat: { url: chat.baseUrl, model: 'llama-3.2-1b', systemPrompt: 'Be brief.', timeoutMs: 2000 },
      speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 2000 },
    });
    const engine = createCascadeEngine(
      cascadeEngineOptions(settings, () => undefined),
      new ScriptedEngine(),
    );
    const log = new EventLog();
    const stream = await engine.open(CONFIG, log.sink);
    const events: ResponseEvent[] = [];
    const finished = new Promise<ResponseEvent>((resolve) => {
      stream.respond!(request(), (event) => {
        events.push(event);
        if (event.type === 'finished') resolve(event);
      });
    });
    return { engine, stream, log, events, finished };
  };

  it('passes a tool call back, with the instructions and tools sent, and does not voice it', async () => {
    chatPlan = { kind: 'tool_calls', calls: [{ id: 'call_9', name: 'clock', argumentPieces: ['{', '}'] }] };
    const { stream, log, events, finished } = await open();
    expect(await finished).toEqual({
      type: 'finished',
      status: 'completed',
      reason: null,
      usage: { inputTokens: FAKE_USAGE.prompt_tokens, outputTokens: FAKE_USAGE.completion_tokens },
    });
    expect(events[0]).toEqual({ type: 'function_call', callId: 'call_9', name: 'clock', arguments: '{}' });
    expect(log.of('response_started')).toEqual([]);
    expect(chatBody(chat.requests.at(-1)!)).toMatchObject({
      max_tokens: 30,
      tool_choice: 'auto',
      tools: [{ type: 'function', function: { name: 'clock', description: 'The time' } }],
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What time is it?' },
      ],
    });
    await stream.close();
  });

  it('voices a text answer under the request item id, its text to the sink as it streams', async () => {
    chatPlan = { kind: 'reply', pieces: ['It is noon.'] };
    const { stream, log, events, finished } = await open();
    await finished;
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta)).toEqual(['It is noon.']);
    expect(log.of('response_started')).toEqual([{ type: 'response_started', itemId: 'item_answer' }]);
    expect(log.of('output_audio').length).toBeGreaterThan(0);
    await stream.close();
  });

  it('cancelResponse stops the answer at once: finished is cancelled and the voice is cut', async () => {
    chatPlan = { kind: 'reply', pieces: ['One two three four five.', ' Six seven eight nine ten.'], delayMs: 200 };
    const { stream, log, finished } = await open();
    await log.next((e) => e.type === 'output_audio');
    stream.cancelResponse!('resp_other'); // another response's id: nothing happens
    stream.cancelResponse!('resp_1');
    expect(await finished).toMatchObject({ type: 'finished', status: 'cancelled' });
    expect(log.of('response_done')).toEqual([{ type: 'response_done', itemId: 'item_answer', interrupted: true }]);
    await stream.close();
  });

  it('does not answer a spoken turn by itself in a conversation session', async () => {
    chatPlan = { kind: 'reply', pieces: ['Unasked.'] };
    const { stream, log, finished } = await open();
    await finished;
    const before = chat.requests.length;
    const loud = Buffer.alloc(3840);
    for (let i = 0; i < 1920; i++) loud.writeInt16LE(i % 2 ? 4000 : -4000, i * 2);
    for (let i = 0; i < 10; i++) stream.pushAudio(loud);
    for (let i = 0; i < 8; i++) stream.pushAudio(Buffer.alloc(3840));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The turn was heard (the scripted listener reports it at once) and not answered.
    expect(log.finals().length).toBe(1);
    expect(chat.requests.length).toBe(before);
    await stream.close();
  });

  it('leaves barge-in to the session when it detects turns: speech heard over the answer does not cut it, interrupt() does', async () => {
    chatPlan = { kind: 'reply', pieces: ['One two three four five.', ' Six seven eight nine ten.'], delayMs: 200 };
    const { stream, log, finished } = await open();
    await log.next((e) => e.type === 'output_audio');
    const loud = Buffer.alloc(3840);
    for (let i = 0; i < 1920; i++) loud.writeInt16LE(i % 2 ? 4000 : -4000, i * 2);
    for (let i = 0; i < 10; i++) stream.pushAudio(loud);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(log.of('speech_started')).toHaveLength(1);
    // The session decides (interrupt_response): the answer goes on until it says so.
    expect(log.of('response_done')).toEqual([]);
    stream.interrupt();
    expect(await finished).toMatchObject({ type: 'finished', status: 'cancelled' });
    expect(log.of('response_done')).toEqual([{ type: 'response_done', itemId: 'item_answer', interrupted: true }]);
    await stream.close();
  });
});
