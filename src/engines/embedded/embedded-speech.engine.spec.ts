import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { EngineCapacityError, EngineStreamConfig } from '../../session-core';
import { EmbeddedSpeechEngine } from './embedded-speech.engine';
import { EventLog, feedAudio } from './testing/stream-driver';

const config = (sessionId: string, overrides: Partial<EngineStreamConfig> = {}): EngineStreamConfig => ({
  sessionId,
  type: 'transcription',
  model: 'vendor-asr-streaming',
  language: 'auto',
  voice: null,
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
  ...overrides,
});

describe('EmbeddedSpeechEngine capacity and lifecycle', () => {
  const engine = new EmbeddedSpeechEngine({ maxStreams: 2, retryAfterMs: 1500 });

  beforeAll(() => engine.start());
  afterAll(() => engine.shutdown());

  it('counts streams and refuses one past the maximum with a retry hint', async () => {
    expect(engine.capacity()).toEqual({ inUse: 0, max: 2 });
    const a = await engine.open(config('a'), () => undefined);
    const b = await engine.open(config('b'), () => undefined);
    expect(engine.capacity()).toEqual({ inUse: 2, max: 2 });
    expect(engine.hasCapacity()).toBe(false);

    const refused = engine.open(config('c'), () => undefined);
    await expect(refused).rejects.toBeInstanceOf(EngineCapacityError);
    await expect(refused).rejects.toMatchObject({ retryAfterMs: 1500 });

    await a.close();
    expect(engine.capacity()).toEqual({ inUse: 1, max: 2 });
    expect(engine.hasCapacity()).toBe(true);
    const c = await engine.open(config('c'), () => undefined);
    await Promise.all([b.close(), c.close()]);
    // Closed streams hand their decoder back: no third model was loaded.
    expect(engine.loadedDecoders).toBe(2);
    expect(engine.capacity().inUse).toBe(0);
  });

  it('does not overshoot when opens race', async () => {
    const results = await Promise.allSettled([1, 2, 3].map((i) => engine.open(config(`race-${i}`), () => undefined)));
    const opened = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(opened).toHaveLength(2);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(EngineCapacityError);
    await Promise.all(opened.map((s) => s.close()));
  });

  it('speaks only as aria', async () => {
    await expect(engine.open(config('v', { type: 'live', voice: 'bob' }), () => undefined)).rejects.toThrow('aria');
    expect(engine.capacity().inUse).toBe(0);
  });

  it('is silent for a stream of silence, and close() is idempotent', async () => {
    const log = new EventLog();
    const stream = await engine.open(config('quiet'), log.sink);
    const quiet = new Int16Array(24_000 * 3);
    for (let i = 0; i < quiet.length; i++) quiet[i] = Math.round(Math.sin(i * 0.7) * 30); // a faint hum, no speech
    await feedAudio(stream, quiet);
    stream.commit(); // manual end of an item that holds no speech: an empty final, nothing else
    await Promise.all([stream.close(), stream.close()]);
    expect(log.of('error')).toEqual([]);
    const types = log.events.map((e) => e.event.type);
    expect(types).toEqual(['input_transcript']);
    expect(log.finals()[0]).toMatchObject({ done: true, transcript: '', delta: '' });
    expect(engine.capacity().inUse).toBe(0);
  });

  it('refuses new streams after shutdown', async () => {
    const other = new EmbeddedSpeechEngine({ maxStreams: 1 });
    const stream = await other.open(config('s'), () => undefined);
    await other.shutdown();
    await expect(stream.close()).resolves.toBeUndefined();
    await expect(other.open(config('t'), () => undefined)).rejects.toThrow('shut down');
    expect(other.hasCapacity()).toBe(false);
  });
});
