import { EngineCapacityError, FRAME_BYTES } from '../engine/engine.port';
import type { ActivationResult } from './ports';
import type { RuntimeTuning } from './runtime-options';
import type { SessionLimits } from '../model/session.types';
import { settle } from '../testing/fake-clock';
import { FakeEngine, FakeStore, Gate } from '../testing/fakes';
import { runtimeOnFakes } from '../testing/runtime-on-fakes';
import { LIVE_CONFIG } from '../testing/live-config';

const CONFIG = LIVE_CONFIG;

function setup(limits: Partial<SessionLimits> = {}, tuning: Partial<RuntimeTuning> = {}) {
  return runtimeOnFakes({ engine: new FakeEngine(), store: new FakeStore(), limits, tuning });
}

async function startedSetup(limits: Partial<SessionLimits> = {}, tuning: Partial<RuntimeTuning> = {}) {
  const s = setup(limits, tuning);
  s.runtime.handle({ type: 'start', config: CONFIG, clientEventId: 'c1' });
  await settle();
  expect(s.runtime.phase).toBe('started');
  return s;
}

const frame = (fill = 0) => Buffer.alloc(FRAME_BYTES, fill);

describe('SessionRuntime start', () => {
  it('opens the engine, activates the session row, then acknowledges', async () => {
    const { engine, store, transport, clock, runtime } = setup({ maxSessionMs: 60_000 });
    runtime.handle({ type: 'start', config: CONFIG, clientEventId: 'c1' });
    await settle();
    expect(engine.last.config).toEqual({
      sessionId: 'sess_1',
      type: 'live',
      model: 'vendor-voicechat',
      language: 'auto',
      voice: 'aria',
      turnDetection: null,
    });
    expect(store.activations).toEqual([
      {
        sessionId: 'sess_1',
        activation: { config: CONFIG, startedAtMs: clock.now(), expiresAtMs: clock.now() + 60_000 },
      },
    ]);
    expect(transport.events).toEqual([
      {
        type: 'started',
        clientEventId: 'c1',
        session: { id: 'sess_1', config: CONFIG, startedAtMs: clock.now(), expiresAtMs: clock.now() + 60_000 },
      },
    ]);
  });

  it('holds client events that arrive during the start and replays them in order', async () => {
    const { engine, store, transport, runtime } = setup();
    const gate = new Gate<ActivationResult>();
    store.nextActivation = gate;
    runtime.handle({ type: 'start', config: CONFIG });
    runtime.handle({ type: 'append', audio: frame(1) });
    runtime.handle({ type: 'mute', clientEventId: 'm' });
    runtime.handle({ type: 'append', audio: frame(2) });
    await settle();
    expect(transport.frames).toEqual([]);
    gate.resolve({ ok: true });
    await settle();
    expect(transport.types()).toEqual(['started', 'muted', 'warning']);
    expect(engine.last.pushed.map((f) => f[0])).toEqual([1, 0]);
  });

  it('answers a refused activation with an error, releases the engine stream and allows another start', async () => {
    const { engine, store, transport, runtime } = setup();
    store.nextActivation = { ok: false, code: 'concurrency_limit_exceeded', message: 'limit reached' };
    runtime.handle({ type: 'start', config: CONFIG, clientEventId: 'c1' });
    await settle();
    expect(transport.events).toEqual([
      {
        type: 'error',
        error: {
          code: 'concurrency_limit_exceeded',
          message: 'limit reached',
          param: null,
          origin: 'client',
          clientEventId: 'c1',
        },
      },
    ]);
    expect(engine.last.calls).toEqual(['close']);
    expect(runtime.phase).toBe('awaiting_start');
    store.nextActivation = { ok: true };
    runtime.handle({ type: 'start', config: CONFIG });
    await settle();
    expect(runtime.phase).toBe('started');
  });

  it('reports engine capacity without touching the session row', async () => {
    const { engine, store, transport, runtime } = setup();
    engine.openError = new EngineCapacityError(1000);
    runtime.handle({ type: 'start', config: CONFIG });
    await settle();
    expect(transport.events[0]).toMatchObject({
      type: 'error',
      error: { code: 'capacity_exhausted', origin: 'server' },
    });
    expect(store.activations).toEqual([]);
  });

  it('reports a failing store as internal_error', async () => {
    const { store, transport, runtime, logged } = setup();
    store.nextActivation = new Error('db down');
    runtime.handle({ type: 'start', config: CONFIG });
    await settle();
    expect(transport.events[0]).toMatchObject({ type: 'error', error: { code: 'internal_error' } });
    expect(logged.join()).toContain('db down');
  });
});

describe('SessionRuntime metering and close', () => {
  it('writes meter batches one at a time, all before the close record, then sends closed and closes 1000', async () => {
    const { clock, meter, store, transport, engine, runtime } = await startedSetup();
    const gate = new Gate<void>();
    meter.gate = gate;
    for (let i = 0; i < 150; i++) {
      clock.advance(80);
      runtime.handle({ type: 'append', audio: frame() });
    }
    runtime.handle({ type: 'close', clientEventId: 'bye' });
    await settle();
    expect(store.closings).toEqual([]);
    expect(transport.closed).toBeNull();
    gate.resolve();
    await runtime.done;
    expect(meter.maxInFlight).toBe(1);
    // Fifteen batches of 10 frames (0.8 s); nothing is left for the close.
    const batches = Array.from({ length: 15 }, (_, i) => ({ seq: i + 1, frames: 10 }));
    expect(meter.written).toEqual(batches);
    expect(store.log).toEqual(['activate', ...batches.map((b) => `meter:${b.seq}`), 'close:close_requested']);
    expect(store.closings[0].closing).toEqual({
      reason: 'close_requested',
      detail: 'client_requested',
      endedAtMs: clock.now(),
      usage: { frames: 150, seconds: 12 },
    });
    const closed = transport.events.at(-1);
    expect(closed).toMatchObject({
      type: 'closed',
      reason: 'close_requested',
      clientEventId: 'bye',
      usage: { frames: 150, seconds: 12 },
    });
    const usages = transport.events.filter((e) => e.type === 'usage').map((e) => e.usage);
    expect(usages).toEqual([
      { frames: 60, seconds: 4.8 },
      { frames: 120, seconds: 9.6 },
      { frames: 150, seconds: 12 },
    ]);
    expect(transport.closed).toEqual({ code: 1000, reason: 'client_requested' });
    expect(engine.last.calls).toEqual(['close']);
    expect(engine.last.pushed).toHaveLength(150);
  });

  it('retries a failed meter write with the same seq', async () => {
    const { clock, meter, runtime, logged } = await startedSetup({}, { meterRetryDelaysMs: [100, 100] });
    meter.failures = 2;
    runtime.handle({ type: 'append', audio: frame() });
    runtime.handle({ type: 'close' });
    await clock.advanceAsync(250);
    await runtime.done;
    expect(meter.written).toEqual([{ seq: 1, frames: 1 }]);
    expect(logged.filter((l) => l.includes('retrying'))).toHaveLength(2);
  });

  it('records a dropped socket as connection_lost and sends nothing more', async () => {
    const { store, transport, runtime } = await startedSetup();
    runtime.handle({ type: 'append', audio: frame() });
    const sent = transport.frames.length;
    runtime.transportClosed();
    await runtime.done;
    expect(store.closings[0].closing).toMatchObject({
      reason: 'connection_lost',
      detail: 'client_disconnected',
      usage: { frames: 1 },
    });
    expect(transport.frames).toHaveLength(sent);
    expect(transport.closed).toBeNull();
  });

  it('records a socket dropped during the start once the start completes', async () => {
    const { store, transport, runtime } = setup();
    const gate = new Gate<ActivationResult>();
    store.nextActivation = gate;
    runtime.handle({ type: 'start', config: CONFIG });
    await settle();
    runtime.transportClosed();
    gate.resolve({ ok: true });
    await runtime.done;
    expect(store.log).toEqual(['activate', 'close:connection_lost']);
    expect(transport.frames).toEqual([]);
  });

  it('expires at the maximum duration', async () => {
    const { clock, transport, runtime } = await startedSetup({ maxSessionMs: 2000 });
    await clock.advanceAsync(1990);
    expect(runtime.phase).toBe('started');
    await clock.advanceAsync(20);
    await runtime.done;
    expect(transport.events.at(-1)).toMatchObject({
      type: 'closed',
      reason: 'expired',
      detail: 'max_duration_reached',
    });
    expect(transport.closed?.code).toBe(1000);
  });

  it('ends on server shutdown with a recorded close and close code 1001', async () => {
    const { store, transport, runtime } = await startedSetup();
    await runtime.end({ kind: 'shutdown' });
    expect(store.closings[0].closing.reason).toBe('connection_lost');
    expect(transport.events.at(-1)).toMatchObject({ type: 'closed', detail: 'server_shutdown' });
    expect(transport.closed?.code).toBe(1001);
  });

  it('ends a socket that never started without touching the store', async () => {
    const { store, transport, runtime } = setup();
    await runtime.end({ kind: 'deleted' });
    expect(store.log).toEqual([]);
    expect(transport.closed).toEqual({ code: 1000, reason: 'session_deleted' });
  });

  it('finalizes even when the engine never finishes closing', async () => {
    const { clock, engine, store, runtime } = await startedSetup({}, { engineCloseTimeoutMs: 500 });
    engine.last.closeGate = new Gate<void>();
    runtime.handle({ type: 'close' });
    await settle();
    expect(store.closings).toEqual([]);
    await clock.advanceAsync(600);
    await runtime.done;
    expect(store.closings).toHaveLength(1);
  });
});

describe('SessionRuntime failures', () => {
  it('closes as connection_lost (1011) when the engine stream throws', async () => {
    const { engine, store, transport, runtime } = await startedSetup();
    engine.last.throwOnPush = true;
    runtime.handle({ type: 'append', audio: frame() });
    await runtime.done;
    expect(store.closings[0].closing).toMatchObject({
      reason: 'connection_lost',
      detail: 'engine_failed',
      usage: { frames: 1 },
    });
    expect(transport.closed?.code).toBe(1011);
  });

  it('ends the session when the client stops reading past the hard backlog', async () => {
    const { transport, runtime } = await startedSetup({}, { hardBacklogBytes: 1000 });
    transport.bufferedAmount = 5000;
    runtime.handle({ type: 'mute' });
    await runtime.done;
    expect(transport.events.at(-1)).toMatchObject({
      type: 'closed',
      reason: 'connection_lost',
      detail: 'client_not_reading',
    });
    expect(transport.closed?.code).toBe(1008);
  });

  it('treats a throwing send as a dropped socket', async () => {
    const { store, transport, runtime } = await startedSetup();
    transport.failSends = true;
    runtime.handle({ type: 'mute' });
    await runtime.done;
    expect(store.closings[0].closing.reason).toBe('connection_lost');
  });
});

describe('SessionRuntime engine output', () => {
  it('runs effects of engine events raised inside pushAudio after the current ones, in order', async () => {
    const { engine, transport, runtime } = await startedSetup();
    const stream = engine.last;
    const push = stream.pushAudio.bind(stream);
    stream.pushAudio = (f: Buffer) => {
      push(f);
      if (stream.pushed.length === 1) stream.sink({ type: 'speech_started', itemId: 'in1', audioStartMs: 0 });
    };
    runtime.handle({ type: 'append', audio: Buffer.alloc(FRAME_BYTES * 2) });
    expect(stream.pushed).toHaveLength(2);
    expect(transport.types()).toEqual(['started', 'speech_started']);
  });

  it('paces response audio and reports the response done once played; barge-in interrupts it', async () => {
    const { clock, engine, transport } = await startedSetup();
    const sink = engine.last.sink;
    sink({ type: 'response_started', itemId: 'out1' });
    sink({ type: 'output_audio', itemId: 'out1', pcm: Buffer.alloc(FRAME_BYTES * 4) });
    sink({ type: 'response_done', itemId: 'out1', interrupted: false });
    expect(transport.types()).toEqual(['started', 'response_started', 'output_audio', 'output_audio']);
    await clock.advanceAsync(400);
    expect(transport.types().slice(-3)).toEqual(['output_audio', 'output_audio', 'response_done']);
    sink({ type: 'response_started', itemId: 'out2' });
    sink({ type: 'output_audio', itemId: 'out2', pcm: Buffer.alloc(FRAME_BYTES * 50) });
    sink({ type: 'speech_started', itemId: 'in2', audioStartMs: 0 });
    const count = transport.frames.length;
    await clock.advanceAsync(1000);
    expect(transport.frames).toHaveLength(count);
    expect(transport.events.at(-1)).toEqual({ type: 'response_done', itemId: 'out2', interrupted: true });
    expect(engine.last.calls).toEqual(['interrupt']);
  });

  it('passes commit and clear to the engine', async () => {
    const { engine, runtime } = await startedSetup();
    runtime.handle({ type: 'append', audio: frame() });
    runtime.handle({ type: 'commit' });
    runtime.handle({ type: 'clear' });
    expect(engine.last.calls).toEqual(['commit', 'clear']);
  });
});
