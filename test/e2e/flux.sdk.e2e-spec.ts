/**
 * `/v2/listen` with the official `@deepgram/sdk` v5 `listen.v2` client, pointed at the service by
 * its baseUrl, on the embedded engine: flite speech in, Flux turn events out.
 */
import { DeepgramClient } from '@deepgram/sdk';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { speechSpan } from '../../src/engines/embedded/testing/speech-timing';
import { normalizeWords, wordEdits } from '../../src/engines/embedded/testing/wer';
import { sleep } from '../support/audio';
import { schemaProblems } from '../support/json-schema-check';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

type Message = { type: string; [key: string]: any };

const ASYNCAPI = JSON.parse(readFileSync(join(__dirname, '../../asyncapi/asyncapi.json'), 'utf8'));
const SERVER_MESSAGES: string[] = ASYNCAPI.operations['flux.server'].messages.map((m: { $ref: string }) =>
  m.$ref.split('/').pop(),
);

/** What the committed AsyncAPI document's `flux` channel does not describe, field for field. */
function undocumented(messages: Message[]): string[] {
  return messages.flatMap((m) =>
    SERVER_MESSAGES.includes(m.type)
      ? schemaProblems(m, ASYNCAPI.channels.flux.messages[m.type].payload, ASYNCAPI, m.event ?? m.type)
      : [`${m.type}: not a documented server message`],
  );
}

describe('/v2/listen with the official Deepgram SDK (listen.v2) and the embedded engine', () => {
  let t: TestApp;
  let apiKey: string;
  let sentence: Buffer;
  let paused: Buffer;
  const SENTENCE = 'turn off the lights in the kitchen';

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0], { env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '2' } });
    ({ apiKey } = await t.newProject());
    const [whole, first, second] = await fliteUtterances('awb', [SENTENCE, 'turn off the lights', 'in the kitchen']);
    const trimmed = (clip: Int16Array) => {
      const span = speechSpan(clip);
      return clip.subarray(span.startMs * 24, span.endMs * 24);
    };
    const pcm = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    sentence = pcm(concatAudio([silence(300), toSessionAudio(whole.clip), silence(1500)]));
    paused = pcm(
      concatAudio([
        silence(300),
        trimmed(toSessionAudio(first.clip)),
        silence(500),
        trimmed(toSessionAudio(second.clip)),
        silence(1500),
      ]),
    );
  }, 120_000);
  afterAll(() => t?.close());

  async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await sleep(20);
    }
  }

  async function connect(extra: Record<string, unknown> = {}) {
    const deepgram = new DeepgramClient({ apiKey, baseUrl: t.baseUrl.replace('http', 'ws') });
    const socket = await deepgram.listen.v2.connect({
      model: 'flux-general-en',
      encoding: 'linear16',
      sample_rate: 24000,
      reconnectAttempts: 0,
      ...extra,
    } as Parameters<typeof deepgram.listen.v2.connect>[0]);
    const messages: Message[] = [];
    const closes: number[] = [];
    const errors: unknown[] = [];
    socket.on('message', (m) => messages.push(m as Message));
    socket.on('close', (e) => closes.push(e.code));
    socket.on('error', (e) => errors.push(e));
    socket.connect();
    await socket.waitForOpen();
    return { socket, messages, closes, errors };
  }

  /** Real-time pace, 80 ms chunks. */
  async function stream(send: (chunk: Buffer) => void, audio: Buffer): Promise<void> {
    const started = Date.now();
    for (let i = 0; i * 3840 < audio.length; i++) {
      const wait = started + (i + 1) * 80 - Date.now();
      if (wait > 0) await sleep(wait);
      send(audio.subarray(i * 3840, (i + 1) * 3840));
    }
  }

  const turnEvents = (messages: Message[]) => messages.filter((m) => m.type === 'TurnInfo').map((m) => m.event);

  it('says Connected first, then StartOfTurn, Updates and one EndOfTurn with the transcript; CloseStream closes 1000', async () => {
    const { socket, messages, closes, errors } = await connect();
    await stream((c) => socket.sendMedia(c), sentence);
    await until(() => turnEvents(messages).includes('EndOfTurn'));
    socket.sendCloseStream({ type: 'CloseStream' });
    await until(() => closes.length > 0);
    expect(errors).toEqual([]);
    expect(closes[0]).toBe(1000);

    expect(messages[0]).toMatchObject({ type: 'Connected', sequence_id: 0 });
    expect(messages.map((m) => m.sequence_id)).toEqual(messages.map((_, i) => i));
    const requestId = messages[0].request_id;
    expect(messages.every((m) => m.request_id === requestId)).toBe(true);
    const events = turnEvents(messages);
    expect(events[0]).toBe('StartOfTurn');
    expect(events.filter((e) => e === 'Update').length).toBeGreaterThanOrEqual(3);
    expect(events.filter((e) => e === 'EndOfTurn')).toHaveLength(1);
    expect(events).not.toContain('EagerEndOfTurn');
    expect(events).not.toContain('TurnResumed');
    const end = messages.find((m) => m.event === 'EndOfTurn')!;
    expect(end).toMatchObject({ trigger: 'model', turn_index: 0 });
    expect(end.end_of_turn_confidence).toBeGreaterThanOrEqual(0.7);
    const heard = normalizeWords(end.transcript);
    expect(wordEdits(normalizeWords(SENTENCE), heard) / 7).toBeLessThanOrEqual(0.3);
    expect(end.words.map((w: { word: string }) => w.word)).toEqual(end.transcript.split(' '));
    expect(end.audio_window_end).toBeGreaterThan(end.audio_window_start);
    expect(undocumented(messages)).toEqual([]);

    // Same session resource and metering as the other dialects.
    const rest = await t.app.inject({
      method: 'GET',
      url: `/v1/sessions/${requestId}`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(rest.json()).toMatchObject({
      type: 'transcription',
      model: 'vendor-asr-streaming',
      status: 'closed',
      close_reason: 'close_requested',
    });
    const frames = rest.json().usage.frames as number;
    expect(frames).toBeGreaterThanOrEqual(Math.floor(sentence.length / 3840));
    expect(frames).toBeLessThanOrEqual(Math.ceil(sentence.length / 3840));
  }, 60_000);

  /**
   * A 500 ms pause after a word that can end a sentence: the eager signal fires in it, and the
   * turn resumes. With eot_threshold 1 only the timeout (1 s here) ends the turn, so the pause cannot
   * end it whatever the machine's load, and the timeout trigger is exercised too.
   */
  it('in eager mode a mid-sentence pause gives EagerEndOfTurn and TurnResumed but one turn', async () => {
    const { socket, messages, closes } = await connect({
      eager_eot_threshold: 0.5,
      eot_threshold: 1,
      eot_timeout_ms: 1000,
    });
    await stream((c) => socket.sendMedia(c), paused);
    await until(() => turnEvents(messages).includes('EndOfTurn'));
    socket.sendCloseStream({ type: 'CloseStream' });
    await until(() => closes.length > 0);
    const events = turnEvents(messages).filter((e) => e !== 'Update');
    expect(events.filter((e) => e === 'StartOfTurn')).toHaveLength(1);
    expect(events.filter((e) => e === 'EndOfTurn')).toHaveLength(1);
    expect(events).toContain('TurnResumed');
    expect(events.indexOf('EagerEndOfTurn')).toBeLessThan(events.indexOf('TurnResumed'));
    expect(events.at(-2)).toBe('EagerEndOfTurn'); // the end is announced eagerly first
    const end = messages.find((m) => m.event === 'EndOfTurn')!;
    expect(end.trigger).toBe('timeout');
    expect(end.transcript).toMatch(/kitchen/);
    expect(undocumented(messages)).toEqual([]);
  }, 60_000);

  it('ForceEndTurn ends the turn with trigger manual; Configure is echoed, or refused when out of range', async () => {
    const { socket, messages, closes } = await connect({ eot_threshold: 1 });
    socket.sendConfigure({ type: 'Configure', thresholds: { eot_timeout_ms: 9000 } });
    socket.sendConfigure({ type: 'Configure', thresholds: { eot_threshold: 0.2 } });
    await until(() => messages.some((m) => m.type === 'ConfigureFailure'));
    expect(messages.find((m) => m.type === 'ConfigureSuccess')).toMatchObject({
      thresholds: { eot_threshold: 1, eot_timeout_ms: 9000 },
      keyterms: [],
    });
    await stream((c) => socket.sendMedia(c), sentence.subarray(0, sentence.length - 1500 * 48));
    await sleep(300);
    expect(turnEvents(messages)).not.toContain('EndOfTurn'); // threshold 1: the model never ends a turn
    socket.sendForceEndTurn({ type: 'ForceEndTurn' });
    await until(() => turnEvents(messages).includes('EndOfTurn'));
    expect(messages.find((m) => m.event === 'EndOfTurn')).toMatchObject({ trigger: 'manual' });
    expect(messages.find((m) => m.event === 'EndOfTurn')!.transcript).toMatch(/kitchen/);
    socket.sendCloseStream({ type: 'CloseStream' });
    await until(() => closes.length > 0);
    expect(closes[0]).toBe(1000);
    expect(undocumented(messages)).toEqual([]);
  }, 60_000);

  it('refuses out-of-range parameters at the handshake with 400 and a message naming them', async () => {
    for (const [query, param] of [
      ['eot_threshold=0.4', 'eot_threshold'],
      ['eager_eot_threshold=0.95', 'eager_eot_threshold'],
      ['eot_timeout_ms=100', 'eot_timeout_ms'],
      ['eot_threshold=0.6&eager_eot_threshold=0.8', 'eager_eot_threshold'],
      ['encoding=mulaw', 'encoding'],
    ] as const) {
      const sep = query.startsWith('encoding') ? '' : 'encoding=linear16&';
      const refusal = await SocketClient.refusal(
        `${t.baseUrl.replace('http', 'ws')}/v2/listen?model=flux-general-en&sample_rate=16000&${sep}${query}`,
        { headers: { authorization: `Token ${apiKey}` } },
      );
      expect(refusal.status).toBe(400);
      const body = refusal.body as { error: { param: string; message: string } };
      expect(body.error.param).toBe(param);
      expect(body.error.message).toContain(param);
    }
  }, 30_000);
});
