/**
 * What the compatibility dialects need of the core: several frames per event, frames of their own,
 * engine settings changed before the first audio, and a start that ends the socket when it fails.
 */
import { EngineCapacityError, FRAME_BYTES, type TurnDetectionConfig } from '../engine/engine.port';
import { closeOutcome } from '../model/close-causes';
import type { ActivationResult, EventRenderer, SessionStorePort } from './ports';
import type { ServerEvent } from '../model/session.events';
import type { SessionConfig } from '../model/session.types';
import { settle } from '../testing/fake-clock';
import { FakeEngine, FakeStore, Gate, JsonRenderer } from '../testing/fakes';
import { runtimeOnFakes } from '../testing/runtime-on-fakes';

const VAD: TurnDetectionConfig = { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 };
const CONFIG: SessionConfig = {
  type: 'transcription',
  model: 'vendor-asr-streaming',
  voice: null,
  language: 'auto',
  turnDetection: VAD,
  outputEncoding: 'base64',
};

class ReconfiguringStore extends FakeStore implements SessionStorePort {
  readonly reconfigured: SessionConfig[] = [];
  failReconfigure = false;

  async reconfigure(_sessionId: string, config: SessionConfig): Promise<void> {
    if (this.failReconfigure) throw new Error('db down');
    this.reconfigured.push(config);
  }
}

function setup(renderer: EventRenderer = new JsonRenderer()) {
  return runtimeOnFakes({ engine: new FakeEngine(), store: new ReconfiguringStore(), renderer });
}

async function started(renderer?: EventRenderer) {
  const s = setup(renderer);
  s.runtime.handle({ type: 'start', config: CONFIG, implicit: true });
  await settle();
  expect(s.runtime.phase).toBe('started');
  s.transport.frames.length = 0;
  return s;
}

const frame = (fill = 0) => Buffer.alloc(FRAME_BYTES, fill);

describe('SessionRuntime for dialects: frames', () => {
  it('sends every frame a renderer returns for one event, in order', async () => {
    const twice: EventRenderer = {
      render: (event: ServerEvent) => (event.type === 'updated' ? ['a', Buffer.from('b'), 'c'] : null),
    };
    const { runtime, transport } = await started(twice);
    runtime.handle({ type: 'update' });
    expect(transport.frames).toEqual(['a', Buffer.from('b'), 'c']);
  });

  it('sends a dialect frame in order with the session events, and never after the socket closed', async () => {
    const { runtime, transport } = setup();
    const own = (type: string) => JSON.stringify({ type });
    runtime.sendDialectFrame(own('hello'));
    runtime.handle({ type: 'start', config: CONFIG });
    await settle();
    runtime.sendDialectFrame(own('between'));
    runtime.handle({ type: 'close' });
    await settle();
    runtime.sendDialectFrame(own('late'));
    expect(transport.types()).toEqual(['hello', 'started', 'between', 'usage', 'closed']);
  });
});

describe('SessionRuntime for dialects: engine settings before the first audio', () => {
  it('reopens the engine stream with the new settings, records them and acknowledges', async () => {
    const { runtime, engine, store, transport } = await started();
    runtime.handle({ type: 'update', clientEventId: 'u1', changes: { turnDetection: null, language: 'en' } });
    runtime.handle({ type: 'append', audio: frame(7) });
    await settle();
    expect(engine.streams).toHaveLength(2);
    expect(engine.streams[0].calls).toEqual(['close']);
    expect(engine.streams[0].pushed).toEqual([]);
    expect(engine.last.config).toMatchObject({ turnDetection: null, language: 'en' });
    expect(engine.last.pushed.map((f) => f[0])).toEqual([7]);
    expect(store.reconfigured).toEqual([{ ...CONFIG, turnDetection: null, language: 'en' }]);
    expect(transport.events).toEqual([
      {
        type: 'updated',
        clientEventId: 'u1',
        session: expect.objectContaining({ config: { ...CONFIG, turnDetection: null, language: 'en' } }),
      },
    ]);
  });

  it('acknowledges an update that changes nothing without touching the engine', async () => {
    const { runtime, engine, store, transport } = await started();
    runtime.handle({ type: 'update', changes: { language: 'auto', turnDetection: { ...VAD } } });
    await settle();
    expect(engine.streams).toHaveLength(1);
    expect(store.reconfigured).toEqual([]);
    expect(transport.types()).toEqual(['updated']);
  });

  it('refuses a change once audio was appended, naming the parameter, and keeps the session as it was', async () => {
    const { runtime, engine, transport } = await started();
    runtime.handle({ type: 'append', audio: Buffer.alloc(100) });
    runtime.handle({ type: 'update', clientEventId: 'u2', changes: { turnDetection: null }, param: 'session.x' });
    await settle();
    expect(engine.streams).toHaveLength(1);
    expect(transport.events.filter((e) => e.type !== 'warning')).toEqual([
      {
        type: 'error',
        error: {
          code: 'session_config_locked',
          message: expect.stringContaining('fixed once audio'),
          param: 'session.x',
          origin: 'client',
          clientEventId: 'u2',
        },
      },
    ]);
    runtime.handle({ type: 'update', clientEventId: 'u3' });
    expect(transport.events.at(-1)).toMatchObject({ type: 'updated', session: { config: CONFIG } });
  });

  it('runs on when recording the new settings fails', async () => {
    const { runtime, store, transport, logged } = await started();
    store.failReconfigure = true;
    runtime.handle({ type: 'update', changes: { language: 'de' } });
    await settle();
    expect(transport.events[0]).toMatchObject({ type: 'updated', session: { config: { language: 'de' } } });
    expect(logged.join()).toContain('db down');
  });

  it('ends the session as engine_failed when the new stream cannot be opened', async () => {
    const { runtime, engine, transport, store } = await started();
    engine.openError = new Error('boom');
    runtime.handle({ type: 'update', changes: { language: 'de' } });
    await runtime.done;
    expect(transport.types()).toEqual(['usage', 'closed']);
    expect(transport.events[1]).toMatchObject({ reason: 'connection_lost', detail: 'engine_failed' });
    expect(transport.closed).toEqual({ code: 1011, reason: 'engine_failed' });
    expect(store.closings).toHaveLength(1);
  });

  it('releases a stream that opened after the session ended', async () => {
    const { runtime, engine, store } = await started();
    engine.openGate = new Gate<void>();
    runtime.handle({ type: 'update', changes: { language: 'de' } });
    await settle();
    runtime.transportClosed();
    await runtime.done;
    engine.openGate.resolve();
    await settle();
    expect(engine.streams).toHaveLength(2);
    expect(engine.last.calls).toEqual(['close']);
    expect(store.closings[0].closing.reason).toBe('connection_lost');
    expect(store.reconfigured).toEqual([]);
  });
});

describe('SessionRuntime for dialects: implicit start', () => {
  it('ends the socket with 1013 when no engine capacity is left, reporting the error first', async () => {
    const { runtime, engine, transport, store } = setup();
    engine.openError = new EngineCapacityError(1000);
    runtime.handle({ type: 'start', config: CONFIG, implicit: true });
    await runtime.done;
    expect(runtime.phase).toBe('closed');
    expect(transport.events).toEqual([
      { type: 'error', error: expect.objectContaining({ code: 'capacity_exhausted', origin: 'server' }) },
    ]);
    expect(transport.closed).toEqual({ code: 1013, reason: 'capacity_exhausted' });
    expect(store.closings).toEqual([]);
  });

  it('ends the socket with 1011 on any other failure', async () => {
    const { runtime, store, transport } = setup();
    store.nextActivation = { ok: false, code: 'concurrency_limit_exceeded', message: 'limit' };
    runtime.handle({ type: 'start', config: CONFIG, implicit: true });
    await runtime.done;
    expect(transport.closed).toEqual({ code: 1011, reason: 'concurrency_limit_exceeded' });
  });
});

describe('close causes of the dialects', () => {
  it('maps undecodable input and failed implicit starts', () => {
    expect(closeOutcome({ kind: 'invalid_input' })).toEqual({
      reason: 'connection_lost',
      detail: 'invalid_input',
      closeCode: 1008,
      notify: true,
    });
    expect(closeOutcome({ kind: 'start_failed', code: 'internal_error' })).toMatchObject({
      closeCode: 1011,
      notify: false,
    });
  });
});

describe('SessionRuntime for dialects: a clean close by the client', () => {
  it('records close_requested after the audio the client sent before closing', async () => {
    const { runtime, store } = setup();
    const gate = new Gate<ActivationResult>();
    store.nextActivation = gate;
    runtime.handle({ type: 'start', config: CONFIG, implicit: true });
    runtime.handle({ type: 'append', audio: frame(3) });
    runtime.clientClosed();
    gate.resolve({ ok: true });
    await runtime.done;
    expect(store.closings[0].closing).toMatchObject({ reason: 'close_requested', usage: { frames: 1 } });
  });
});
