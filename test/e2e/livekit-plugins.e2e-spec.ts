/**
 * LiveKit Agents' speech-to-text plugins as clients, standalone (no LiveKit server): the OpenAI
 * plugin's realtime STT against `/v1/realtime?intent=transcription`, the Deepgram plugin's STT against
 * `/v1/listen` and its STTv2 (Flux) against `/v2/listen`, on the embedded engine with flite speech.
 * What they found: a close without a code (1005) recorded as a lost connection, an error ahead of the
 * last transcript after a DELETE, and server turn detection for a client that commits itself.
 * The OpenAI plugin's RealtimeModel (a conversation session, `?model=`) has its own file:
 * livekit-realtime-plugin.e2e-spec.ts.
 */
import { initializeLogger, stt as lk } from '@livekit/agents';
import { STT as DeepgramSTT, STTv2 as DeepgramFlux } from '@livekit/agents-plugin-deepgram';
import { STT as OpenAISTT } from '@livekit/agents-plugin-openai';
import { AudioFrame, dispose } from '@livekit/rtc-node';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { normalizeWords, wordEdits } from '../../src/engines/embedded/testing/wer';
import { sleep } from '../support/audio';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const SENTENCE = 'turn off the lights in the kitchen';
const RATE = 24_000;
/** LiveKit's own frame size for a room's audio: 10 ms. */
const FRAME_SAMPLES = RATE / 100;

type SpeechEvent = lk.SpeechEvent;
type LkFrame = Parameters<lk.SpeechStream['pushFrame']>[0];

/** Word error rate of what was heard against the sentence. */
const wer = (heard: string) => wordEdits(normalizeWords(SENTENCE), normalizeWords(heard)) / 7;

describe('LiveKit Agents plugins (OpenAI and Deepgram STT) against the service', () => {
  let t: TestApp;
  let spoken: Int16Array;

  beforeAll(async () => {
    initializeLogger({ pretty: false, level: 'warn' });
    t = await startTestApp(databaseTargets()[0], { env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '2' } });
    const [utterance] = await fliteUtterances('awb', [SENTENCE]);
    spoken = concatAudio([silence(300), toSessionAudio(utterance.clip), silence(1200)]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    // LiveKit's native audio library (its frames, the plugins' resampler) runs a thread of its own.
    await dispose();
  });

  /** A project of its own per test, so its one session is the test's. */
  async function project() {
    const { apiKey } = await t.newProject();
    const rest = async (method: 'GET' | 'DELETE', url: string) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${apiKey}` } });
    const onlySession = async () => {
      for (let i = 0; i < 200; i++) {
        const list = (await rest('GET', '/v1/sessions')).json().data as { id: string; status: string }[];
        if (list.length > 0) return list[0];
        await sleep(25);
      }
      throw new Error('no session was opened');
    };
    const closedSession = async () => {
      const { id } = await onlySession();
      for (let i = 0; i < 200; i++) {
        const session = (await rest('GET', `/v1/sessions/${id}`)).json();
        if (session.status === 'closed') return session;
        await sleep(25);
      }
      throw new Error(`session ${id} did not close`);
    };
    return { apiKey, rest, onlySession, closedSession };
  }

  /** Pushes audio in LiveKit's 10 ms frames, in real time. */
  async function push(stream: lk.SpeechStream, pcm: Int16Array, stop: () => boolean = () => false): Promise<void> {
    const started = Date.now();
    for (let at = 0, n = 0; at < pcm.length && !stop(); at += FRAME_SAMPLES, n++) {
      const samples = pcm.slice(at, Math.min(pcm.length, at + FRAME_SAMPLES));
      // The plugins' typings reach rtc-node through its .d.cts, this file through its .d.ts: one class.
      stream.pushFrame(new AudioFrame(samples, RATE, 1, samples.length) as unknown as LkFrame);
      // 80 ms at a time keeps the timers few; the plugins re-chunk anyway.
      if (n % 8 === 7) {
        const wait = started + ((at + FRAME_SAMPLES) / RATE) * 1000 - Date.now();
        if (wait > 0) await sleep(wait);
      }
    }
  }

  /** Every event of a stream, until it ends. */
  function collect(stream: lk.SpeechStream): { events: SpeechEvent[]; ended: Promise<void> } {
    const events: SpeechEvent[] = [];
    const ended = (async () => {
      for await (const event of stream) events.push(event);
    })();
    return { events, ended };
  }

  const finals = (events: SpeechEvent[]) =>
    events.filter((e) => e.type === lk.SpeechEventType.FINAL_TRANSCRIPT).map((e) => e.alternatives![0].text);
  /** The OpenAI plugin reports usage once per completed item, empty or not. */
  const items = (events: SpeechEvent[]) => events.filter((e) => e.type === lk.SpeechEventType.RECOGNITION_USAGE);

  async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await sleep(20);
    }
  }

  describe('OpenAI plugin, realtime STT on /v1/realtime', () => {
    const openai = (apiKey: string, options: Partial<ConstructorParameters<typeof OpenAISTT>[0]> = {}) =>
      new OpenAISTT({ apiKey, baseURL: `${t.baseUrl}/v1`, model: 'vendor-asr-streaming', language: 'en', ...options });

    it('transcribes on server VAD and records its close (no code) as close_requested', async () => {
      const { apiKey, closedSession } = await project();
      const plugin = openai(apiKey);
      const errors: unknown[] = [];
      plugin.on('error', (e) => errors.push(e.error));
      const stream = plugin.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 10_000 } });
      const { events, ended } = collect(stream);
      await push(stream, spoken);
      await until(() => finals(events).length > 0);
      stream.endInput();
      await ended;

      expect(errors).toEqual([]);
      expect(finals(events)).toHaveLength(1);
      expect(wer(finals(events)[0])).toBeLessThanOrEqual(0.3);
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining([lk.SpeechEventType.START_OF_SPEECH, lk.SpeechEventType.END_OF_SPEECH]),
      );
      expect(await closedSession()).toMatchObject({ model: 'vendor-asr-streaming', close_reason: 'close_requested' });
    }, 60_000);

    it.each([
      ['turn detection off (turnDetection: null)', { turnDetection: null }],
      [
        'a model without server turn detection (gpt-realtime-whisper: turn_detection left out)',
        { model: 'gpt-realtime-whisper' },
      ],
    ])(
      'commits once per flush with %s: one item with the transcript',
      async (_how, options) => {
        const { apiKey, closedSession } = await project();
        // vad: null is the plugin's opt-out of its own VAD: the application flushes at the end of a turn.
        const plugin = openai(apiKey, { ...options, vad: null } as Partial<ConstructorParameters<typeof OpenAISTT>[0]>);
        const errors: unknown[] = [];
        plugin.on('error', (e) => errors.push(e.error));
        const stream = plugin.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 10_000 } });
        const { events, ended } = collect(stream);
        await push(stream, spoken);
        stream.flush();
        await until(() => items(events).length > 0);
        // Long enough for a second, empty item to show up if server VAD had committed one too.
        await sleep(500);
        stream.endInput();
        await ended;

        expect(errors).toEqual([]);
        expect(items(events)).toHaveLength(1);
        expect(finals(events)).toHaveLength(1);
        expect(wer(finals(events)[0])).toBeLessThanOrEqual(0.3);
        expect(await closedSession()).toMatchObject({ close_reason: 'close_requested' });
      },
      60_000,
    );

    it('after a DELETE mid-stream, hears the last transcript, then the deletion as its first error', async () => {
      const { apiKey, rest, onlySession } = await project();
      const plugin = openai(apiKey);
      const errors: Error[] = [];
      plugin.on('error', (e) => errors.push(e.error as Error));
      const stream = plugin.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 10_000 } });
      const { events, ended } = collect(stream);
      // Audio goes on through the deletion, as a room's microphone does.
      const endless = concatAudio([spoken, spoken, spoken]);
      let deleted = false;
      let over = false;
      void ended.finally(() => (over = true));
      const pushing = push(stream, endless, () => over).catch(() => undefined);
      const interim = () =>
        events.filter((e) => e.type === lk.SpeechEventType.INTERIM_TRANSCRIPT).at(-1)?.alternatives![0].text ?? '';
      await until(() => normalizeWords(interim()).length >= 3);
      const heardBefore = normalizeWords(interim());
      const { id } = await onlySession();
      expect((await rest('DELETE', `/v1/sessions/${id}`)).statusCode).toBe(204);
      deleted = true;
      await ended;
      await pushing;

      expect(deleted).toBe(true);
      expect(errors.map((e) => e.message)).toEqual(['The session was deleted.']);
      // The utterance under way when it was deleted still reached the application as a final. Its words
      // are the recogniser's rescoring of the partials, not a superset of them (one CI run heard three
      // words in the partials and one in the final), so only its arrival is asserted.
      expect(heardBefore.length).toBeGreaterThanOrEqual(3);
      expect(finals(events)).toHaveLength(1);
      expect(normalizeWords(finals(events)[0]).length).toBeGreaterThan(0);
    }, 60_000);
  });

  describe('Deepgram plugin', () => {
    it('STT on /v1/listen: interim and final results at 16 kHz, CloseStream recorded as close_requested', async () => {
      const { apiKey, closedSession } = await project();
      const plugin = new DeepgramSTT({ apiKey, baseUrl: t.baseUrl.replace('http', 'ws'), endpointing: 300 });
      const errors: unknown[] = [];
      plugin.on('error', (e) => errors.push(e.error));
      const stream = plugin.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 10_000 } });
      const { events, ended } = collect(stream);
      await push(stream, spoken);
      await until(() => finals(events).length > 0);
      stream.endInput();
      await ended;

      expect(errors).toEqual([]);
      expect(events.some((e) => e.type === lk.SpeechEventType.INTERIM_TRANSCRIPT)).toBe(true);
      expect(finals(events)).toHaveLength(1);
      expect(wer(finals(events)[0])).toBeLessThanOrEqual(0.3);
      expect(events.some((e) => e.type === lk.SpeechEventType.END_OF_SPEECH)).toBe(true);
      expect(await closedSession()).toMatchObject({ close_reason: 'close_requested' });
    }, 60_000);

    it('STT with endpointing off: the flush (Finalize) ends the utterance, one final with the transcript', async () => {
      const { apiKey, closedSession } = await project();
      // endpointing 0 is the plugin's `endpointing=false`: the application ends turns with flush().
      const plugin = new DeepgramSTT({ apiKey, baseUrl: t.baseUrl.replace('http', 'ws'), endpointing: 0 });
      const errors: unknown[] = [];
      plugin.on('error', (e) => errors.push(e.error));
      const stream = plugin.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 10_000 } });
      const { events, ended } = collect(stream);
      await push(stream, spoken);
      expect(finals(events)).toEqual([]);
      stream.flush();
      await until(() => finals(events).length > 0);
      await sleep(500);
      stream.endInput();
      await ended;

      expect(errors).toEqual([]);
      expect(finals(events)).toHaveLength(1);
      expect(wer(finals(events)[0])).toBeLessThanOrEqual(0.3);
      expect(await closedSession()).toMatchObject({ close_reason: 'close_requested' });
    }, 60_000);

    it('STTv2 (Flux) on /v2/listen: one end of turn with the transcript, close recorded as close_requested', async () => {
      const { apiKey, closedSession } = await project();
      const plugin = new DeepgramFlux({ apiKey, endpointUrl: `${t.baseUrl.replace('http', 'ws')}/v2/listen` });
      const errors: unknown[] = [];
      plugin.on('error', (e) => errors.push(e.error));
      const stream = plugin.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 10_000 } });
      const { events, ended } = collect(stream);
      await push(stream, spoken);
      await until(() => finals(events).length > 0);
      stream.endInput();
      await ended;

      expect(errors).toEqual([]);
      expect(finals(events)).toHaveLength(1);
      expect(wer(finals(events)[0])).toBeLessThanOrEqual(0.3);
      expect(await closedSession()).toMatchObject({ close_reason: 'close_requested' });
    }, 60_000);
  });
});
