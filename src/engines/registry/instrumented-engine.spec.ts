import { Registry } from 'prom-client';
import { SessionMetrics } from '../../modules/metrics/session-metrics';
import type { EngineEventSink, EngineStream, SpeechEngine } from '../../session-core';
import { instrumentEngine } from './instrumented-engine';

/** An engine whose events the test sends itself. */
function fakeEngine() {
  let sink: EngineEventSink = () => undefined;
  const pushed: Buffer[] = [];
  const engine: SpeechEngine = {
    name: 'fake',
    open: async (_config, s) => {
      sink = s;
      const stream: EngineStream = {
        pushAudio: (frame) => void pushed.push(frame),
        commit: () => undefined,
        clear: () => undefined,
        interrupt: () => undefined,
        close: async () => undefined,
      };
      return stream;
    },
    capacity: () => ({ inUse: 3, max: 8 }),
    hasCapacity: () => true,
    shutdown: async () => undefined,
  };
  return { engine, pushed, emit: (event: Parameters<EngineEventSink>[0]) => sink(event) };
}

const CONFIG = {
  sessionId: 'sess_x',
  type: 'live' as const,
  model: 'vendor-voicechat',
  language: 'auto',
  voice: 'aria',
  turnDetection: null,
};
const frame = Buffer.alloc(3840); // 80 ms

describe('instrumentEngine', () => {
  it('measures audio, first partial from speech start, final from speech stop, and streams', async () => {
    const registry = new Registry();
    const metrics = new SessionMetrics(registry);
    let clock = 0;
    const fake = fakeEngine();
    const stream = await instrumentEngine(fake.engine, metrics, undefined, () => clock).open(CONFIG, () => undefined);
    stream.pushAudio(frame);
    clock = 100;
    fake.emit({ type: 'speech_started', itemId: 'i1', audioStartMs: 0 });
    clock = 350;
    fake.emit({ type: 'input_transcript', itemId: 'i1', delta: 'hel', startMs: 0, endMs: 80, done: false });
    clock = 400;
    fake.emit({ type: 'input_transcript', itemId: 'i1', delta: 'lo', startMs: 0, endMs: 160, done: false });
    clock = 1000;
    fake.emit({ type: 'speech_stopped', itemId: 'i1', audioEndMs: 900 });
    clock = 1600;
    fake.emit({ type: 'input_transcript', itemId: 'i1', delta: '', startMs: 0, endMs: 900, done: true });
    fake.emit({ type: 'output_audio', itemId: 'r1', pcm: Buffer.alloc(48_000) }); // 1 s
    expect(fake.pushed).toHaveLength(1);

    const json = await registry.getMetricsAsJSON();
    const values = (name: string) =>
      json.find((m) => m.name === name)!.values as { value: number; labels: object; metricName?: string }[];
    const sumOf = (name: string) => values(name).find((v) => v.metricName === `${name}_sum`)!.value;
    expect(sumOf('continuum_time_to_first_partial_seconds')).toBeCloseTo(0.25, 6);
    expect(sumOf('continuum_time_to_final_seconds')).toBeCloseTo(0.6, 6);
    expect(values('continuum_audio_seconds_total')).toEqual([
      expect.objectContaining({ labels: { direction: 'in' }, value: 0.08 }),
      expect.objectContaining({ labels: { direction: 'out' }, value: 1 }),
    ]);
    expect(values('continuum_engine_streams_in_use')).toEqual([
      expect.objectContaining({ labels: { engine: 'fake' }, value: 3 }),
    ]);
    expect(values('continuum_engine_streams_free')).toEqual([
      expect.objectContaining({ labels: { engine: 'fake' }, value: 5 }),
    ]);
  });

  it('without speech events, times an utterance from its first audio and its commit', async () => {
    const registry = new Registry();
    const metrics = new SessionMetrics(registry);
    let clock = 0;
    const fake = fakeEngine();
    const stream = await instrumentEngine(fake.engine, metrics, undefined, () => clock).open(CONFIG, () => undefined);
    clock = 10;
    stream.pushAudio(frame);
    clock = 510;
    fake.emit({ type: 'input_transcript', itemId: 'i1', delta: 'hi', startMs: 0, endMs: 80, done: false });
    clock = 700;
    stream.commit();
    clock = 900;
    fake.emit({ type: 'input_transcript', itemId: 'i1', delta: '', startMs: 0, endMs: 80, done: true });
    const text = await registry.metrics();
    expect(text).toContain('continuum_time_to_first_partial_seconds_sum{model="vendor-voicechat"} 0.5');
    expect(text).toContain('continuum_time_to_final_seconds_sum{model="vendor-voicechat"} 0.2');
  });

  it("passes an eager answer's preparation through to an engine that has it, and adds none to one that does not", async () => {
    const metrics = new SessionMetrics(new Registry());
    const calls: string[] = [];
    const fake = fakeEngine();
    const open = fake.engine.open;
    const preparing: SpeechEngine = {
      ...fake.engine,
      open: async (config, sink) => ({
        ...(await open(config, sink)),
        prepareResponse: (transcript) => void calls.push(`prepare ${transcript}`),
        discardPreparedResponse: () => void calls.push('discard'),
      }),
    };
    const stream = await instrumentEngine(preparing, metrics).open(CONFIG, () => undefined);
    stream.prepareResponse?.('what time is it');
    stream.discardPreparedResponse?.();
    expect(calls).toEqual(['prepare what time is it', 'discard']);

    const plain = await instrumentEngine(fakeEngine().engine, metrics, 'plain').open(CONFIG, () => undefined);
    expect(plain.prepareResponse).toBeUndefined();
    expect(plain.discardPreparedResponse).toBeUndefined();
  });
});
