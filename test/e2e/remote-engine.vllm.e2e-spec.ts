/**
 * The remote engine against a vLLM Realtime worker written from the published protocol (a real
 * ws server): the messages it sends, resampling to the worker's rate, deltas and finals mapped to
 * input_transcript events with timings, the worker pool, and faults mid-utterance.
 */
import type { EngineEvent, EngineStream, EngineStreamConfig } from '../../src/session-core';
import { ConfigSection } from '../../src/engines/registry/config-section';
import { RemoteSpeechEngine } from '../../src/engines/remote/remote-speech.engine';
import { parseRemoteSettings } from '../../src/engines/remote/remote-settings';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { chunks, sleep, tone } from '../support/audio';
import { FakeVllmWorker, FakeWorkerOptions } from '../support/fake-vllm-worker';

const quiet = { warn: () => undefined, error: () => undefined, log: () => undefined };

function engineFor(workers: string[], extra: Record<string, unknown> = {}, apiKey?: string): RemoteSpeechEngine {
  const settings = parseRemoteSettings(
    new ConfigSection('test', 'engines.asr', {
      protocol: 'vllm-realtime',
      workers,
      model: 'mistralai/Voxtral-Mini-4B-Realtime-2602',
      maxStreamsPerWorker: 2,
      stallTimeoutMs: 400,
      connectTimeoutMs: 500,
      healthIntervalMs: 200,
      backoffMinMs: 200,
      ...extra,
    }),
  );
  return new RemoteSpeechEngine(settings, () => apiKey, quiet);
}

const manual = (sessionId: string): EngineStreamConfig => ({
  sessionId,
  type: 'transcription',
  model: 'vendor-asr-streaming',
  language: 'en',
  voice: null,
  turnDetection: null,
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

async function push(stream: EngineStream, audio: Buffer, paceMs = 0): Promise<void> {
  for (const frame of chunks(audio, 80)) {
    stream.pushAudio(frame);
    if (paceMs) await sleep(paceMs);
  }
}

const finals = (events: EngineEvent[]) =>
  events.filter(
    (e): e is Extract<EngineEvent, { type: 'input_transcript' }> => e.type === 'input_transcript' && e.done,
  );

describe('remote engine with a vLLM Realtime worker', () => {
  const workers: FakeVllmWorker[] = [];
  let engine: RemoteSpeechEngine | null = null;
  const startWorker = async (options: FakeWorkerOptions = {}) => {
    const worker = await FakeVllmWorker.start(options);
    workers.push(worker);
    return worker;
  };
  afterEach(async () => {
    await engine?.shutdown();
    engine = null;
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });

  it('speaks the protocol, resamples to 16 kHz and maps deltas and the final onto the timeline', async () => {
    const worker = await startWorker();
    engine = engineFor([worker.url], {}, 'sk-upstream-secret');
    await engine.start();
    const events: EngineEvent[] = [];
    const stream = await engine.open(manual('sess_a'), (e) => events.push(e));
    await push(stream, tone(1600));
    stream.commit();
    await until(() => finals(events).length === 1);
    await stream.close();

    const session = worker.sessions[0];
    expect(worker.authorizations).toEqual(['Bearer sk-upstream-secret']);
    expect(session.model).toBe('mistralai/Voxtral-Mini-4B-Realtime-2602');
    expect(JSON.parse(session.messages[0])).toEqual({ type: 'session.update', model: session.model });
    expect(JSON.parse(session.messages[1])).toEqual({ type: 'input_audio_buffer.commit' });
    expect(session.messages.at(-1)).toBe(JSON.stringify({ type: 'input_audio_buffer.commit', final: true }));
    // 1.6 s at 16 kHz, give or take the resampler's filter delay (under 1 ms).
    expect(Math.abs(session.generations[0] - 1.6 * 16_000 * 2)).toBeLessThanOrEqual(64);

    const deltas = events.filter((e) => e.type === 'input_transcript' && !e.done) as Array<
      Extract<EngineEvent, { type: 'input_transcript' }>
    >;
    expect(deltas.map((d) => d.delta).join('')).toBe('w1 w2 w3 w4');
    for (let i = 1; i < deltas.length; i++) expect(deltas[i].startMs).toBeGreaterThanOrEqual(deltas[i - 1].endMs);
    const [final] = finals(events);
    expect(final).toMatchObject({ transcript: 'w1 w2 w3 w4', delta: '', startMs: 0, endMs: 1600 });
    expect(new Set(events.map((e) => (e as { itemId?: string }).itemId))).toEqual(new Set([final.itemId]));
  });

  it('finds turns with its own VAD: speech_started/stopped locally, one generation per utterance', async () => {
    const worker = await startWorker();
    engine = engineFor([worker.url]);
    await engine.start();
    const spoken = await fliteUtterances('awb', ['turn off the lights in the kitchen', 'what time is it right now']);
    const clips = spoken.map((u) => toSessionAudio(u.clip));
    const audio = concatAudio([silence(600), clips[0], silence(1500), clips[1], silence(1500)]);
    const events: EngineEvent[] = [];
    const stream = await engine.open(
      {
        ...manual('sess_vad'),
        turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
      },
      (e) => events.push(e),
    );
    await push(stream, Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength), 2);
    await until(() => finals(events).length === 2);
    await stream.close();

    const started = events.filter((e) => e.type === 'speech_started') as Array<{
      itemId: string;
      audioStartMs: number;
    }>;
    const stopped = events.filter((e) => e.type === 'speech_stopped') as Array<{ itemId: string; audioEndMs: number }>;
    expect(started).toHaveLength(2);
    expect(stopped.map((e) => e.itemId)).toEqual(started.map((e) => e.itemId));
    expect(finals(events).map((f) => f.itemId)).toEqual(started.map((e) => e.itemId));
    // Onsets near where the speech is (less the 300 ms padding), ends before the next utterance.
    const secondAt = 600 + clips[0].length / 24 + 1500;
    expect(started[0].audioStartMs).toBeGreaterThanOrEqual(0);
    expect(started[0].audioStartMs).toBeLessThan(600);
    expect(stopped[0].audioEndMs).toBeLessThan(secondAt);
    expect(started[1].audioStartMs).toBeGreaterThan(stopped[0].audioEndMs);
    // flite's clips begin with a little silence of their own: the onset is at or after the clip start.
    expect(started[1].audioStartMs).toBeGreaterThanOrEqual(secondAt - 300 - 100);
    expect(started[1].audioStartMs).toBeLessThan(secondAt + 500);
    finals(events).forEach((f, i) => {
      expect(f.startMs).toBe(started[i].audioStartMs);
      expect(f.endMs).toBe(stopped[i].audioEndMs);
      expect(f.transcript).toMatch(/^w1( w\d+)*$/);
    });
    // Only the utterances reached the worker, not the silence between them.
    expect(worker.sessions[0].generations).toHaveLength(2);
    const sentMs = worker.sessions[0].generations.reduce((n, b) => n + b / 32, 0);
    expect(sentMs).toBeLessThan(audio.length / 24 - 1500);
  });

  it('commits each utterance as its own generation and delivers finals in order', async () => {
    const worker = await startWorker();
    engine = engineFor([worker.url]);
    await engine.start();
    const events: EngineEvent[] = [];
    const stream = await engine.open(manual('sess_b'), (e) => events.push(e));
    await push(stream, tone(800));
    stream.commit();
    await push(stream, tone(1200));
    stream.commit();
    await stream.close();
    expect(finals(events).map((f) => [f.transcript, f.startMs, f.endMs])).toEqual([
      ['w1 w2', 0, 800],
      ['w1 w2 w3', 800, 2000],
    ]);
    expect(worker.sessions[0].generations).toHaveLength(2);
  });

  it('takes the least-loaded worker, refuses when every slot is taken, and skips an unreachable worker', async () => {
    const [a, b] = [await startWorker(), await startWorker()];
    const dead = 'ws://127.0.0.1:1/v1/realtime';
    // Without health probes a dead worker's next try comes after its backoff: a long one keeps it
    // out for the whole test, however slowly the machine opens the four streams.
    engine = engineFor([dead, a.url, b.url], { healthPath: null, backoffMinMs: 60_000 });
    await engine.start();
    const streams: EngineStream[] = [];
    for (let i = 0; i < 4; i++) streams.push(await engine.open(manual(`sess_${i}`), () => undefined));
    expect([a.openSockets, b.openSockets]).toEqual([2, 2]);
    expect(engine.capacity()).toEqual({ inUse: 4, max: 4 });
    expect(engine.hasCapacity()).toBe(false);
    await expect(engine.open(manual('sess_x'), () => undefined)).rejects.toMatchObject({
      retryAfterMs: expect.any(Number),
    });
    await Promise.all(streams.map((s) => s.close()));
    expect(engine.capacity().inUse).toBe(0);
  });

  it('skips a worker that accepts the socket but never greets, after connectTimeoutMs', async () => {
    const [hung, good] = [await startWorker({ silent: true }), await startWorker()];
    engine = engineFor([hung.url, good.url], { healthPath: null });
    await engine.start();
    const events: EngineEvent[] = [];
    const started = Date.now();
    const stream = await engine.open(manual('sess_h'), (e) => events.push(e));
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    await push(stream, tone(400));
    stream.commit();
    await until(() => finals(events).length === 1);
    await stream.close();
    expect(good.sessions).toHaveLength(1);
    expect(hung.openSockets).toBe(0);
  });

  it('takes a worker whose health probe fails out of rotation and back once it recovers', async () => {
    const [a, b] = [await startWorker(), await startWorker({ unhealthy: true })];
    engine = engineFor([a.url, b.url]);
    await engine.start();
    expect(engine.capacity().max).toBe(2);
    b.options.unhealthy = false;
    await until(() => engine!.capacity().max === 4, 5_000);
    expect(b.healthChecks).toBeGreaterThan(1);
  });

  it.each(['die', 'garbage', 'error', 'stall'] as const)(
    'moves a stream whose worker faults (%s) mid-utterance to another worker and re-sends the utterance',
    async (fault) => {
      const bad = await startWorker({ fault, faultAfterMs: 500 });
      const good = await startWorker();
      engine = engineFor([bad.url, good.url], { healthPath: null });
      await engine.start();
      const events: EngineEvent[] = [];
      // Both workers are idle: the first open goes to the first listed, the faulty one.
      const stream = await engine.open(manual('sess_f'), (e) => events.push(e));
      expect(bad.openSockets).toBe(1);
      await push(stream, tone(1200), 5);
      stream.commit();
      await until(() => finals(events).length === 1, 10_000);
      await stream.close();
      expect(finals(events)[0]).toMatchObject({ transcript: 'w1 w2 w3', startMs: 0, endMs: 1200 });
      // The whole utterance reached the second worker, once.
      expect(good.sessions).toHaveLength(1);
      expect(Math.abs(good.sessions[0].generations[0] - 1.2 * 16_000 * 2)).toBeLessThanOrEqual(64);
      expect(events.some((e) => e.type === 'error')).toBe(false);
    },
  );

  it('moves an idle stream whose worker went away without spending a failover', async () => {
    const [a, b] = [await startWorker(), await startWorker()];
    engine = engineFor([a.url, b.url], { healthPath: null, maxFailovers: 0 });
    await engine.start();
    const events: EngineEvent[] = [];
    const stream = await engine.open(manual('sess_i'), (e) => events.push(e));
    await push(stream, tone(400));
    stream.commit();
    await until(() => finals(events).length === 1);
    a.killSockets(); // between utterances: nothing is owed
    await until(() => b.openSockets === 1);
    await push(stream, tone(800));
    stream.commit();
    await until(() => finals(events).length === 2);
    await stream.close();
    expect(finals(events).map((f) => f.transcript)).toEqual(['w1', 'w1 w2']);
    expect(events.some((e) => e.type === 'error')).toBe(false);
  });

  it('ends the stream with a fatal engine_unavailable error when no worker can take it over', async () => {
    const bad = await startWorker({ fault: 'die', faultAfterMs: 300 });
    engine = engineFor([bad.url], { healthPath: null });
    await engine.start();
    const events: EngineEvent[] = [];
    const stream = await engine.open(manual('sess_d'), (e) => events.push(e));
    await push(stream, tone(800), 5);
    await until(() => events.some((e) => e.type === 'error'));
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'engine_unavailable', fatal: true });
    await stream.close();
    expect(engine.capacity().inUse).toBe(0);
    expect(engine.hasCapacity()).toBe(false); // the dead worker is in backoff
  });
});
