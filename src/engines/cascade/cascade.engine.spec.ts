import type { EngineEvent, EngineStream, EngineStreamConfig } from '../../session-core';
import { EventLog } from '../embedded/testing/stream-driver';
import { ScriptedEngine } from '../scripted/scripted.engine';
import { createCascadeEngine } from './cascade.engine';
import { cascadeEngineOptions, parseCascadeSettings } from './cascade.options';
import { chatBody, startFakeChatServer, type ChatPlan } from './testing/fake-chat-server';
import { startFakeSpeechServer, type SpeechPlan } from './testing/fake-speech-server';
import type { RecordingServer } from './testing/recording-server';

/**
 * The cascade over the scripted engine as its listener (a tone is speech; each turn is heard as
 * "one two …"), answering through fake chat and speech servers on real sockets.
 */
const CONFIG: EngineStreamConfig = {
  sessionId: 'sess_cascade',
  type: 'live',
  model: 'vendor-voicechat',
  language: 'en',
  voice: 'aria',
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 400, prefixPaddingMs: 0 },
};
const MS_PER_CHAR = 20;

function frames(ms: number, loud: boolean): Buffer[] {
  return Array.from({ length: ms / 80 }, () => {
    const frame = Buffer.alloc(3840);
    if (loud) for (let i = 0; i < 1920; i++) frame.writeInt16LE(i % 2 ? 4000 : -4000, i * 2);
    return frame;
  });
}

describe('CascadeEngine', () => {
  let chat: RecordingServer;
  let speech: RecordingServer;
  let chatPlan: ChatPlan;
  let speechPlan: SpeechPlan;
  const warnings: string[] = [];

  beforeAll(async () => {
    chat = await startFakeChatServer(() => chatPlan);
    speech = await startFakeSpeechServer(() => speechPlan);
  });
  afterAll(async () => {
    await chat.close();
    await speech.close();
  });

  const open = async (
    chatTimeoutMs = 1000,
    turnDetection: EngineStreamConfig['turnDetection'] = CONFIG.turnDetection,
  ) => {
    const settings = parseCascadeSettings({
      chat: {
        url: chat.baseUrl,
        model: 'llama-3.2-1b',
        systemPrompt: 'Be brief.',
        timeoutMs: chatTimeoutMs,
        apiKey: { env: 'CHAT_KEY' },
      },
      speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 1000 },
    });
    const options = cascadeEngineOptions(settings, (ref) => ('env' in ref ? `sk-${ref.env}` : undefined));
    const engine = createCascadeEngine(options, new ScriptedEngine(), {
      logger: { warn: (m) => warnings.push(m) },
    });
    const log = new EventLog();
    const stream = await engine.open({ ...CONFIG, turnDetection }, log.sink);
    return { engine, log, stream };
  };

  /** One user turn: speech, then silence long enough to end it. */
  const speak = (stream: EngineStream, speechMs = 800) => {
    for (const frame of [...frames(speechMs, true), ...frames(480, false)]) stream.pushAudio(frame);
  };

  const ofItem = (log: EventLog, itemId: string) =>
    log.events.map((e) => e.event).filter((e) => 'itemId' in e && e.itemId === itemId);

  it('answers a turn: the conversation goes to the chat server, the answer comes back as audio and timed words', async () => {
    chatPlan = { kind: 'reply', pieces: ['Hi', ' there. How', ' can I', ' help?'], delayMs: 5 };
    speechPlan = { msPerChar: MS_PER_CHAR, chunkMs: 100, chunkEveryMs: 5 };
    const { engine, log, stream } = await open();
    speak(stream);
    const started = await log.next((e) => e.type === 'response_started');
    const done = await log.next((e) => e.type === 'response_done');
    expect(done).toMatchObject({ itemId: (started as { itemId: string }).itemId, interrupted: false });

    expect(chatBody(chat.requests.at(-1)!).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'one two' },
    ]);
    expect(chat.requests.at(-1)!.headers.authorization).toBe('Bearer sk-CHAT_KEY');
    expect(speech.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(speech.requests.slice(-2).map((r) => (r.body as { input: string }).input)).toEqual([
      'Hi there.',
      'How can I help?',
    ]);
    const events = ofItem(log, (started as { itemId: string }).itemId);
    const audio = Buffer.concat(events.flatMap((e) => (e.type === 'output_audio' ? [e.pcm] : [])));
    const audioMs = audio.length / 48;
    expect(audioMs).toBe(('Hi there.'.length + 'How can I help?'.length) * MS_PER_CHAR);
    const words = events.filter(
      (e): e is Extract<EngineEvent, { type: 'output_transcript' }> => e.type === 'output_transcript',
    );
    expect(
      words
        .filter((w) => !w.done)
        .map((w) => w.delta)
        .join(''),
    ).toBe('Hi there. How can I help?');
    expect(words.at(-1)).toMatchObject({ done: true, transcript: 'Hi there. How can I help?', endMs: audioMs });
    // Word times lie in the response's audio, in order; the second sentence starts after the first's audio.
    const timed = words.filter((w) => !w.done);
    expect(
      timed.every(
        (w, i) => w.startMs <= w.endMs && w.endMs <= audioMs && (i === 0 || w.startMs >= timed[i - 1].startMs),
      ),
    ).toBe(true);
    expect(timed[2]).toMatchObject({ delta: ' How', startMs: 'Hi there.'.length * MS_PER_CHAR });

    // The next turn carries the conversation so far.
    chatPlan = { kind: 'reply', pieces: ['Sure.'] };
    speak(stream);
    await log.next((e) => e.type === 'response_done');
    expect(chatBody(chat.requests.at(-1)!).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'one two' },
      { role: 'assistant', content: 'Hi there. How can I help?' },
      { role: 'user', content: 'one two' },
    ]);
    await stream.close();
    await engine.shutdown();
  });

  it('barge-in by interrupt() stops the voice at once and aborts the chat and speech requests', async () => {
    chatPlan = {
      kind: 'reply',
      pieces: ['One sentence here.', ...Array.from({ length: 40 }, () => ' More words.')],
      delayMs: 50,
    };
    speechPlan = { msPerChar: MS_PER_CHAR, chunkMs: 40, chunkEveryMs: 40 };
    const { engine, log, stream } = await open();
    speak(stream);
    const audio = (await log.next((e) => e.type === 'output_audio')) as { itemId: string };
    const chatRequest = chat.requests.at(-1)!;
    const speechRequest = speech.requests.at(-1)!;
    stream.interrupt();
    const last = log.events.at(-1)!.event;
    // Synchronously: the response is over before interrupt() returns.
    expect(last).toEqual({ type: 'response_done', itemId: audio.itemId, interrupted: true });
    await chat.waitUntil(() => chatRequest.aborted);
    await speech.waitUntil(() => speechRequest.aborted);
    const count = log.events.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(log.events.slice(count).filter((e) => e.event.type !== 'error')).toEqual([]);
    expect(log.of('error')).toEqual([]);
    await stream.close();
    await engine.shutdown();
  });

  it('barge-in by new speech cancels the answer; the next answer has what was heard of the last one', async () => {
    chatPlan = {
      kind: 'reply',
      pieces: ['First sentence is said.', ...Array.from({ length: 40 }, () => ' More words.')],
      delayMs: 50,
    };
    // Synthesis faster than real time (as real servers are): the voice paces playback itself.
    speechPlan = { msPerChar: 40, chunkMs: 80, chunkEveryMs: 10 };
    const { engine, log, stream } = await open();
    speak(stream);
    const audio = (await log.next((e) => e.type === 'output_audio')) as { itemId: string };
    const chatRequest = chat.requests.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const frame of frames(160, true)) stream.pushAudio(frame);
    expect(log.events.map((e) => e.event.type)).toContain('speech_started');
    expect(log.of('response_done').at(-1)).toEqual({ type: 'response_done', itemId: audio.itemId, interrupted: true });
    await chat.waitUntil(() => chatRequest.aborted);
    await speech.waitUntil(() => speech.requests.every((r) => r.aborted || r.completed));
    chatPlan = { kind: 'reply', pieces: ['Okay.'] };
    speak(stream, 640);
    await log.next((e) => e.type === 'response_done');
    const messages = chatBody(chat.requests.at(-1)!).messages;
    expect(messages[2].role).toBe('assistant');
    expect('First sentence is said.'.startsWith(messages[2].content)).toBe(true);
    expect(messages[2].content.length).toBeGreaterThan(0);
    await stream.close();
    await engine.shutdown();
  });

  it('a chat server answering 500, or not at all, fails the turn with an error event; the next turn is answered', async () => {
    speechPlan = { msPerChar: MS_PER_CHAR, chunkMs: 100, chunkEveryMs: 1 };
    const { engine, log, stream } = await open(300);
    for (const [plan, code] of [
      [
        { kind: 'error', status: 500, message: 'boom at /srv/model.py', type: 'server_error', code: null },
        'chat_failed',
      ],
      [{ kind: 'hang' }, 'chat_timeout'],
    ] as Array<[ChatPlan, string]>) {
      chatPlan = plan;
      speak(stream);
      const error = await log.next((e) => e.type === 'error');
      expect(error).toMatchObject({ type: 'error', code });
      expect((error as { message: string }).message).not.toMatch(/srv|boom|127\.0\.0\.1/);
    }
    expect(log.of('response_started')).toEqual([]);
    expect(warnings.some((w) => w.includes('chat_failed: HTTP 500'))).toBe(true);
    chatPlan = { kind: 'reply', pieces: ['Back again.'] };
    speak(stream);
    const done = await log.next((e) => e.type === 'response_done');
    expect(done).toMatchObject({ interrupted: false });
    expect(log.of('output_transcript').at(-1)).toMatchObject({ done: true, transcript: 'Back again.' });
    await stream.close();
    await engine.shutdown();
  });

  it('a chat stream that stalls after a sentence speaks that sentence, then fails the turn', async () => {
    chatPlan = { kind: 'stall', pieces: ['Said in full. Never fin'] };
    speechPlan = { msPerChar: MS_PER_CHAR, chunkMs: 100, chunkEveryMs: 1 };
    const { engine, log, stream } = await open(300);
    speak(stream);
    await log.next((e) => e.type === 'response_done');
    expect(log.of('error')).toEqual([expect.objectContaining({ code: 'chat_timeout' })]);
    expect(log.of('output_transcript').at(-1)).toMatchObject({ done: true, transcript: 'Said in full.' });
    expect(log.of('response_done').at(-1)).toMatchObject({ interrupted: false });
    await stream.close();
    await engine.shutdown();
  });

  it('a speech server failure fails the turn and stops the generation', async () => {
    chatPlan = { kind: 'reply', pieces: ['Hello.', ...Array.from({ length: 40 }, () => ' More.')], delayMs: 50 };
    speechPlan = { msPerChar: MS_PER_CHAR, chunkMs: 100, chunkEveryMs: 1, failWith: 500 };
    const { engine, log, stream } = await open();
    speak(stream);
    const error = await log.next((e) => e.type === 'error');
    expect(error).toMatchObject({ code: 'speech_failed' });
    const chatRequest = chat.requests.at(-1)!;
    await chat.waitUntil(() => chatRequest.aborted);
    expect(log.of('response_started')).toEqual([]);
    await stream.close();
    await engine.shutdown();
  });

  it('with manual turns, the first words of a new item barge in: the engine itself ends the response', async () => {
    chatPlan = {
      kind: 'reply',
      pieces: ['A long answer.', ...Array.from({ length: 40 }, () => ' More.')],
      delayMs: 50,
    };
    speechPlan = { msPerChar: MS_PER_CHAR, chunkMs: 40, chunkEveryMs: 40 };
    const { engine, log, stream } = await open(1000, null);
    for (const frame of frames(800, true)) stream.pushAudio(frame);
    stream.commit();
    const audio = (await log.next((e) => e.type === 'output_audio')) as { itemId: string };
    const chatRequest = chat.requests.at(-1)!;
    expect(log.of('speech_started')).toEqual([]);
    for (const frame of frames(480, true)) stream.pushAudio(frame);
    expect(log.of('response_done')).toEqual([{ type: 'response_done', itemId: audio.itemId, interrupted: true }]);
    await chat.waitUntil(() => chatRequest.aborted);
    // Closing delivers the new item's final transcript, which is no longer answered.
    const requests = chat.requests.length;
    await stream.close();
    expect(log.finals()).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(chat.requests.length).toBe(requests);
    await engine.shutdown();
  });

  it('close() during an answer aborts the upstream requests and emits nothing more', async () => {
    chatPlan = { kind: 'reply', pieces: ['Talking.', ...Array.from({ length: 40 }, () => ' On.')], delayMs: 50 };
    speechPlan = { msPerChar: MS_PER_CHAR, chunkMs: 40, chunkEveryMs: 40 };
    const { engine, log, stream } = await open();
    speak(stream);
    await log.next((e) => e.type === 'output_audio');
    const chatRequest = chat.requests.at(-1)!;
    await stream.close();
    const count = log.events.length;
    await chat.waitUntil(() => chatRequest.aborted);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(log.events.length).toBe(count);
    await engine.shutdown();
  });

  it('a transcription session only listens', async () => {
    const { engine } = await open();
    const log = new EventLog();
    const stream = await engine.open({ ...CONFIG, type: 'transcription', voice: null }, log.sink);
    const before = chat.requests.length;
    speak(stream);
    await stream.close();
    expect(log.finals().map((e) => e.transcript)).toEqual(['one two']);
    expect(chat.requests.length).toBe(before);
    expect(engine.capacity().inUse).toBe(1); // the first open()'s stream is still open
    await engine.shutdown();
    expect(engine.capacity().inUse).toBe(0);
  });
});
