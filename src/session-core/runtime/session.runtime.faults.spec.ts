import { FRAME_BYTES } from '../engine/engine.port';
import type { LoggerPort } from './ports';
import type { RuntimeTuning } from './runtime-options';
import { SessionRuntime } from './session.runtime';
import type { SessionLimits } from '../model/session.types';
import { DEFAULT_VAD } from '../model/defaults';
import { FakeClock, settle } from '../testing/fake-clock';
import { FakeEngine, FakeMeter, FakeStore, FakeTransport, Gate, JsonRenderer } from '../testing/fakes';
import { LIVE_CONFIG } from '../testing/live-config';

/** Counts the engine opens in flight at once: a session must never reopen twice over itself. */
class CountingEngine extends FakeEngine {
  inFlight = 0;
  maxInFlight = 0;

  override async open(...args: Parameters<FakeEngine['open']>) {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await settle(); // an open takes a while: every command sent meanwhile must be held
      return await super.open(...args);
    } finally {
      this.inFlight--;
    }
  }
}

function setup(limits: Partial<SessionLimits> = {}, tuning: Partial<RuntimeTuning> = {}) {
  const clock = new FakeClock();
  const engine = new CountingEngine();
  const store = new FakeStore();
  const transport = new FakeTransport();
  const logged: string[] = [];
  const logger: LoggerPort = { warn: (m) => logged.push(m), error: (m) => logged.push(m) };
  const renderer = new JsonRenderer();
  const runtime = new SessionRuntime({
    sessionId: 'sess_1',
    engine,
    store,
    meter: new FakeMeter(store.log),
    transport,
    renderer,
    clock,
    logger,
    limits,
    tuning,
  });
  return { clock, engine, store, transport, runtime, logged, renderer };
}

async function started(limits: Partial<SessionLimits> = {}, tuning: Partial<RuntimeTuning> = {}) {
  const s = setup(limits, tuning);
  s.runtime.handle({ type: 'start', config: LIVE_CONFIG });
  await settle();
  expect(s.runtime.phase).toBe('started');
  return s;
}

/** An update that changes engine settings, so it reopens the engine stream (no audio yet). */
const update = (i: number) =>
  ({
    type: 'update',
    clientEventId: `u${i}`,
    changes: { turnDetection: { ...DEFAULT_VAD, silenceDurationMs: i % 2 === 0 ? 500 : 600 } },
  }) as const;

const errorsOf = (transport: FakeTransport) =>
  transport.events.filter((e) => e.type === 'error').map((e) => (e.error as { code: string }).code);

describe('SessionRuntime: a burst of updates (each reopens the engine)', () => {
  let rejections: unknown[];
  const onRejection = (reason: unknown) => rejections.push(reason);
  beforeEach(() => {
    rejections = [];
    process.on('unhandledRejection', onRejection);
  });
  afterEach(() => {
    process.off('unhandledRejection', onRejection);
  });

  it('reopens one at a time and acknowledges every update in order', async () => {
    const { engine, transport, runtime } = await started({ controlBurst: 1000 });
    for (let i = 0; i < 40; i++) runtime.handle(update(i));
    for (let i = 0; i < 200 && transport.types().filter((t) => t === 'updated').length < 40; i++) await settle();
    const acks = transport.events.filter((e) => e.type === 'updated').map((e) => e.clientEventId);
    expect(acks).toEqual(Array.from({ length: 40 }, (_, i) => `u${i}`));
    expect(engine.maxInFlight).toBe(1);
    // Every stream but the last was closed when the next one opened.
    expect(engine.streams.filter((s) => !s.calls.includes('close'))).toHaveLength(1);
    expect(runtime.phase).toBe('started');
    expect(rejections).toEqual([]);
  });

  it('past the hold, tells the client and ends the session (the burst that used to crash the process)', async () => {
    const { engine, store, transport, runtime } = await started({ controlBurst: 1000 }, { maxHeldEvents: 256 });
    for (let i = 0; i < 300; i++) runtime.handle(update(i));
    await runtime.done;
    expect(engine.maxInFlight).toBe(1);
    expect(errorsOf(transport)).toEqual(['rate_limit_exceeded']);
    expect(transport.types().slice(-3)).toEqual(['error', 'usage', 'closed']);
    expect(transport.closed).toEqual({ code: 1008, reason: 'held_events_exceeded' });
    expect(store.closings.map((c) => [c.closing.reason, c.closing.detail])).toEqual([
      ['connection_lost', 'held_events_exceeded'],
    ]);
    expect(engine.streams.every((s) => s.calls.includes('close'))).toBe(true);
    expect(rejections).toEqual([]);
  });
});

describe('SessionRuntime: control-message rate', () => {
  it('refuses past the burst with an error, then a policy close; audio does not count', async () => {
    const { transport, runtime, store } = await started({ controlBurst: 5, controlPerSecond: 1 });
    for (let i = 0; i < 50; i++) runtime.handle({ type: 'append', audio: Buffer.alloc(FRAME_BYTES) });
    for (let i = 0; i < 8; i++) runtime.handle({ type: 'mute', clientEventId: `m${i}` });
    await runtime.done;
    // The start took one token: four mutes are acknowledged, the fifth breaks the limit.
    expect(transport.events.filter((e) => e.type === 'muted').map((e) => e.clientEventId)).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
    ]);
    expect(errorsOf(transport)).toEqual(['rate_limit_exceeded']);
    expect(transport.closed).toEqual({ code: 1008, reason: 'control_rate_exceeded' });
    expect(store.closings[0].closing).toMatchObject({ reason: 'connection_lost', detail: 'control_rate_exceeded' });
  });

  it('refills with time', async () => {
    const { transport, runtime, clock } = await started({ controlBurst: 2, controlPerSecond: 2 });
    for (let i = 0; i < 10; i++) {
      runtime.handle({ type: 'mute', clientEventId: `m${i}` });
      clock.advance(500);
    }
    expect(transport.events.filter((e) => e.type === 'muted')).toHaveLength(10);
    expect(runtime.phase).toBe('started');
  });
});

describe('SessionRuntime: a fault stays in its session', () => {
  it('an effect that throws ends the session with internal_error (1011), recorded', async () => {
    const { transport, runtime, store, renderer, logged } = await started();
    const render = renderer.render.bind(renderer);
    renderer.render = (event) => {
      if (event.type === 'muted') throw new TypeError('held is not iterable');
      return render(event);
    };
    runtime.handle({ type: 'mute', clientEventId: 'm' });
    await runtime.done;
    expect(errorsOf(transport)).toEqual(['internal_error']);
    expect(transport.closed).toEqual({ code: 1011, reason: 'internal_error' });
    expect(store.closings[0].closing).toMatchObject({ reason: 'connection_lost', detail: 'internal_error' });
    expect(logged.join('\n')).toMatch(/effect emit failed: TypeError: held is not iterable/);
  });

  it('fault() from a dialect handler ends it once, however often it is called', async () => {
    const { transport, runtime, store } = await started();
    runtime.fault(new Error('boom'));
    runtime.fault(new Error('again'));
    await runtime.done;
    expect(errorsOf(transport)).toEqual(['internal_error']);
    expect(store.closings).toHaveLength(1);
  });

  it('a close that cannot be recorded still ends the session and its socket', async () => {
    const { transport, runtime, store } = await started();
    store.close = () => Promise.reject(new Error('database unavailable'));
    runtime.handle({ type: 'close', clientEventId: 'bye' });
    await runtime.done;
    expect(transport.types().at(-1)).toBe('closed');
    expect(transport.closed).toEqual({ code: 1000, reason: 'client_requested' });
  });

  it('a start whose work rejects after the engine opened ends the socket, not the process', async () => {
    const { runtime, store, transport } = setup();
    const gate = new Gate<never>();
    store.activate = () => gate.promise;
    runtime.handle({ type: 'start', config: LIVE_CONFIG, clientEventId: 's' });
    gate.reject(new Error('connection terminated'));
    await settle();
    expect(errorsOf(transport)).toEqual(['internal_error']);
    expect(runtime.phase).toBe('awaiting_start');
  });
});

describe('SessionRuntime: idle rule', () => {
  it('ends a started session that appends no audio for the idle time (expired, idle_timeout)', async () => {
    const { runtime, clock, store, transport } = await started({ idleTimeoutMs: 1000, controlBurst: 100 });
    clock.advance(600);
    runtime.handle({ type: 'append', audio: Buffer.alloc(FRAME_BYTES) });
    for (let i = 0; i < 9; i++) {
      clock.advance(100);
      runtime.handle({ type: 'mute' }); // control messages are no sign of a session in use
    }
    expect(runtime.phase).toBe('started'); // 900 ms after the last audio
    clock.advance(100);
    await runtime.done;
    expect(store.closings[0].closing).toMatchObject({ reason: 'expired', detail: 'idle_timeout' });
    expect(transport.events.at(-1)).toMatchObject({ type: 'closed', reason: 'expired', detail: 'idle_timeout' });
  });

  it('counts whole frames only: appends of a few samples do not keep a session alive', async () => {
    const { runtime, clock, store } = await started({ idleTimeoutMs: 1000, maxSessionMs: 600_000 });
    // 2 bytes (one sample) every 400 ms: a frame's worth would take over five minutes.
    for (let i = 0; i < 2; i++) {
      clock.advance(400);
      runtime.handle({ type: 'append', audio: Buffer.alloc(2) });
    }
    expect(runtime.phase).toBe('started');
    clock.advance(400);
    runtime.handle({ type: 'append', audio: Buffer.alloc(2) });
    await runtime.done;
    expect(store.closings[0].closing).toMatchObject({ reason: 'expired', detail: 'idle_timeout' });
    // The samples were metered as the final partial frame, and billed.
    expect(store.closings[0].closing.usage).toMatchObject({ frames: 1 });
  });

  it('an append that completes a frame counts, however small it is', async () => {
    const { runtime, clock } = await started({ idleTimeoutMs: 1000, maxSessionMs: 600_000 });
    runtime.handle({ type: 'append', audio: Buffer.alloc(FRAME_BYTES - 2) });
    clock.advance(900);
    runtime.handle({ type: 'append', audio: Buffer.alloc(2) });
    clock.advance(900);
    expect(runtime.phase).toBe('started');
  });

  it('0 turns it off', async () => {
    const { runtime, clock } = await started({ idleTimeoutMs: 0, maxSessionMs: 600_000 });
    clock.advance(300_000);
    expect(runtime.phase).toBe('started');
  });
});

describe('SessionRuntime: response rate', () => {
  it('allows the burst, then one response per refill, and says when to retry', async () => {
    const { runtime, clock } = await started({ responseBurst: 3, responsesPerMinute: 30 });
    for (let i = 0; i < 3; i++) expect(runtime.refuseResponse()).toBeNull();
    expect(runtime.refuseResponse()).toEqual({
      code: 'rate_limit_exceeded',
      message: 'more than 3 responses at once or 30 a minute on this session; retry in 2 s',
    });
    clock.advance(1_900);
    expect(runtime.refuseResponse()).not.toBeNull();
    clock.advance(100);
    expect(runtime.refuseResponse()).toBeNull();
    expect(runtime.refuseResponse()).not.toBeNull();
    expect(runtime.phase).toBe('started'); // a refused response does not end the session
  });
});
