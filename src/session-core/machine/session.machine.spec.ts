import { FRAME_BYTES } from '../engine/engine.port';
import type { Effect } from '../model/session.effects';
import type { ServerEvent } from '../model/session.events';
import { SessionMachine } from './session.machine';
import { LIVE_CONFIG } from '../testing/live-config';

const T0 = 1_767_225_600_000;
const CONFIG = LIVE_CONFIG;
const NO_OUTPUT = { framesSent: 0, framesDropped: 0, warnings: 0 };

function events(effects: readonly Effect[]): ServerEvent[] {
  return effects.flatMap((e) => (e.kind === 'emit' ? [e.event] : []));
}
function kinds(effects: readonly Effect[]): string[] {
  return effects.map((e) => (e.kind === 'emit' ? `emit:${e.event.type}` : e.kind));
}
function errorOf(effects: readonly Effect[]) {
  const [event] = events(effects);
  if (event?.type !== 'error') throw new Error(`expected one error, got ${JSON.stringify(kinds(effects))}`);
  return event.error;
}
function started(limits = {}): SessionMachine {
  const machine = new SessionMachine('sess_1', limits);
  machine.start(CONFIG);
  machine.startSucceeded(T0);
  return machine;
}
function frames(n: number, fill = 1): Buffer {
  return Buffer.alloc(n * FRAME_BYTES, fill);
}

describe('SessionMachine before start', () => {
  it.each([
    ['appendAudio', (m: SessionMachine) => m.appendAudio(frames(1), T0, 'c1')],
    ['update', (m: SessionMachine) => m.update('c1')],
    ['commit', (m: SessionMachine) => m.commit('c1')],
    ['clear', (m: SessionMachine) => m.clear('c1')],
    ['mute', (m: SessionMachine) => m.mute('c1')],
    ['unmute', (m: SessionMachine) => m.unmute('c1')],
    ['close', (m: SessionMachine) => m.close({ kind: 'client', clientEventId: 'c1' })],
  ])('refuses %s with session_not_started and echoes the client event id', (_name, call) => {
    const machine = new SessionMachine('sess_1');
    expect(errorOf(call(machine))).toEqual({
      code: 'session_not_started',
      message: expect.any(String),
      param: null,
      origin: 'client',
      clientEventId: 'c1',
    });
    expect(machine.phase).toBe('awaiting_start');
  });

  it('leaves client_event_id out of an error when the client sent none', () => {
    const error = errorOf(new SessionMachine('s').mute());
    expect('clientEventId' in error).toBe(false);
  });

  it('asks the driver to open the session on start, and refuses a second start meanwhile', () => {
    const machine = new SessionMachine('sess_1');
    expect(machine.start(CONFIG, 'c1')).toEqual([{ kind: 'open_session', config: CONFIG }]);
    expect(machine.phase).toBe('starting');
    expect(errorOf(machine.start(CONFIG, 'c2'))).toMatchObject({
      code: 'session_already_started',
      clientEventId: 'c2',
    });
    expect(errorOf(machine.appendAudio(frames(1), T0))).toMatchObject({ code: 'session_not_started' });
  });

  it('acknowledges a successful start with started (echoing the start id) and schedules expiry', () => {
    const machine = new SessionMachine('sess_1', { maxSessionMs: 30_000 });
    machine.start(CONFIG, 'c1');
    const effects = machine.startSucceeded(T0);
    expect(effects).toEqual([
      {
        kind: 'emit',
        event: {
          type: 'started',
          clientEventId: 'c1',
          session: { id: 'sess_1', config: CONFIG, startedAtMs: T0, expiresAtMs: T0 + 30_000 },
        },
      },
      { kind: 'schedule_expiry', atMs: T0 + 30_000 },
    ]);
    expect(machine.phase).toBe('started');
    expect(errorOf(machine.start(CONFIG))).toMatchObject({ code: 'session_already_started' });
  });

  it('reports a failed start to the start event and accepts a new start', () => {
    const machine = new SessionMachine('sess_1');
    machine.start(CONFIG, 'c1');
    const error = errorOf(machine.startFailed({ code: 'concurrency_limit_exceeded', message: 'too many' }));
    expect(error).toEqual({
      code: 'concurrency_limit_exceeded',
      message: 'too many',
      param: null,
      origin: 'client',
      clientEventId: 'c1',
    });
    expect(machine.phase).toBe('awaiting_start');
    expect(kinds(machine.start(CONFIG))).toEqual(['open_session']);
  });

  it('marks engine capacity and internal failures as server errors', () => {
    const machine = new SessionMachine('sess_1');
    machine.start(CONFIG);
    expect(errorOf(machine.startFailed({ code: 'capacity_exhausted', message: 'full' })).origin).toBe('server');
  });

  it('ends a socket that never started without a session.closed', () => {
    const dropped = new SessionMachine('s');
    expect(dropped.close({ kind: 'transport_lost' })).toEqual([]);
    expect(dropped.phase).toBe('closed');
    const shut = new SessionMachine('s');
    expect(shut.close({ kind: 'shutdown' })).toEqual([
      { kind: 'transport_close', code: 1001, reason: 'server_shutdown' },
    ]);
    const deleted = new SessionMachine('s');
    expect(deleted.close({ kind: 'deleted' })).toEqual([
      { kind: 'transport_close', code: 1000, reason: 'session_deleted' },
    ]);
  });

  it('holds a close that arrives while starting and applies it once started', () => {
    const machine = new SessionMachine('sess_1');
    machine.start(CONFIG);
    expect(machine.close({ kind: 'transport_lost' })).toEqual([]);
    expect(machine.close({ kind: 'shutdown' })).toEqual([]); // the first cause wins
    const effects = machine.startSucceeded(T0);
    expect(kinds(effects)).toEqual([
      'emit:started',
      'schedule_expiry',
      'ending',
      'output_flush',
      'engine_close',
      'finalize',
    ]);
    expect(effects.at(-1)).toMatchObject({
      kind: 'finalize',
      reason: 'connection_lost',
      detail: 'client_disconnected',
    });
  });

  it('applies a held close after a failed start as if the session never started', () => {
    const machine = new SessionMachine('sess_1');
    machine.start(CONFIG);
    machine.close({ kind: 'deleted' });
    expect(kinds(machine.startFailed({ code: 'capacity_exhausted', message: 'full' }))).toEqual([
      'emit:error',
      'transport_close',
    ]);
    expect(machine.phase).toBe('closed');
  });
});

describe('SessionMachine client events once started', () => {
  it('acknowledges update, mute and unmute with the client event id only when given', () => {
    const machine = started();
    expect(events(machine.update('u1'))).toEqual([{ type: 'updated', clientEventId: 'u1', session: machine.session }]);
    expect(events(machine.mute('m1'))).toEqual([{ type: 'muted', clientEventId: 'm1' }]);
    expect(events(machine.unmute())).toEqual([{ type: 'unmuted' }]);
  });

  it('refuses a commit with no audio since the last one, and acknowledges a real one', () => {
    const machine = started();
    expect(errorOf(machine.commit('k1'))).toMatchObject({ code: 'input_audio_buffer_empty', clientEventId: 'k1' });
    machine.appendAudio(frames(2), T0);
    expect(machine.commit('k2')).toEqual([
      { kind: 'engine_commit' },
      { kind: 'emit', event: { type: 'input_committed', clientEventId: 'k2' } },
    ]);
    expect(errorOf(machine.commit())).toMatchObject({ code: 'input_audio_buffer_empty' });
  });

  it('clears the engine and acknowledges', () => {
    const machine = started();
    machine.appendAudio(frames(1), T0);
    expect(machine.clear()).toEqual([{ kind: 'engine_clear' }, { kind: 'emit', event: { type: 'input_cleared' } }]);
    expect(errorOf(machine.commit()).code).toBe('input_audio_buffer_empty');
  });

  it('reports dialect refusals as client errors', () => {
    expect(errorOf(started().reject('unknown_event', 'nope', 'type', 'e1'))).toEqual({
      code: 'unknown_event',
      message: 'nope',
      param: 'type',
      origin: 'client',
      clientEventId: 'e1',
    });
  });
});

describe('SessionMachine audio framing', () => {
  it('pushes whole frames as views of the appended bytes, without a copy', () => {
    const machine = started();
    const audio = frames(2);
    const effects = machine.appendAudio(audio, T0);
    expect(kinds(effects)).toEqual(['engine_push', 'engine_push']);
    const first = effects[0] as Extract<Effect, { kind: 'engine_push' }>;
    expect(first.frame.buffer).toBe(audio.buffer);
    expect(first.frame.length).toBe(FRAME_BYTES);
  });

  it('carries a remainder into the next frame and warns about partial frames once', () => {
    const machine = started();
    const first = machine.appendAudio(Buffer.alloc(1000, 1), T0);
    expect(events(first)).toEqual([{ type: 'warning', code: 'partial_frame', message: expect.any(String) }]);
    expect(kinds(first)).toEqual(['emit:warning']);
    const second = machine.appendAudio(Buffer.alloc(FRAME_BYTES - 1000 + 20, 2), T0);
    expect(kinds(second)).toEqual(['engine_push']);
    const frame = (second[0] as Extract<Effect, { kind: 'engine_push' }>).frame;
    expect(frame.length).toBe(FRAME_BYTES);
    expect(frame[999]).toBe(1);
    expect(frame[1000]).toBe(2);
    expect(machine.usage).toEqual({ frames: 1, seconds: 0.08 });
  });

  it('refuses odd byte lengths with invalid_audio and ignores empty appends', () => {
    const machine = started();
    expect(errorOf(machine.appendAudio(Buffer.alloc(3841), T0, 'a1'))).toMatchObject({
      code: 'invalid_audio',
      param: 'audio',
      clientEventId: 'a1',
    });
    expect(machine.appendAudio(Buffer.alloc(0), T0)).toEqual([]);
    expect(machine.usage.frames).toBe(0);
  });

  it('counts a final partial frame as one frame at close and pushes it to the engine', () => {
    const machine = started();
    machine.appendAudio(Buffer.alloc(FRAME_BYTES + 100), T0);
    const effects = machine.close({ kind: 'client' });
    const pushes = effects.filter((e) => e.kind === 'engine_push') as Extract<Effect, { kind: 'engine_push' }>[];
    expect(pushes.map((p) => p.frame.length)).toEqual([100]);
    expect(machine.usage).toEqual({ frames: 2, seconds: 0.16 });
  });
});

describe('SessionMachine mute', () => {
  it('meters muted audio, feeds the engine silence and warns once per mute period', () => {
    const machine = started();
    machine.mute();
    const first = machine.appendAudio(frames(1, 7), T0);
    expect(events(first)).toEqual([{ type: 'warning', code: 'audio_while_muted', message: expect.any(String) }]);
    const push = first.find((e) => e.kind === 'engine_push') as Extract<Effect, { kind: 'engine_push' }>;
    expect(push.frame.every((b) => b === 0)).toBe(true);
    expect(events(machine.appendAudio(frames(1, 7), T0 + 80))).toEqual([]);
    machine.mute(); // still the same period
    expect(events(machine.appendAudio(frames(1, 7), T0 + 160))).toEqual([]);
    machine.unmute();
    const loud = machine.appendAudio(frames(1, 7), T0 + 240);
    expect((loud[0] as Extract<Effect, { kind: 'engine_push' }>).frame[0]).toBe(7);
    machine.mute();
    expect(events(machine.appendAudio(frames(1), T0 + 320)).map((e) => e.type)).toEqual(['warning']);
    expect(machine.usage.frames).toBe(5);
  });

  it('feeds a muted partial tail as silence of the same length', () => {
    const machine = started();
    machine.mute();
    machine.appendAudio(Buffer.alloc(200, 9), T0);
    const push = machine.close({ kind: 'client' }).find((e) => e.kind === 'engine_push') as Extract<
      Effect,
      { kind: 'engine_push' }
    >;
    expect(push.frame.length).toBe(200);
    expect(push.frame.every((b) => b === 0)).toBe(true);
  });
});

describe('SessionMachine input rate', () => {
  it('accepts real-time input without warnings', () => {
    const machine = started();
    for (let i = 0; i < 100; i++)
      expect(events(machine.appendAudio(frames(1), T0 + i * 80)).filter((e) => e.type === 'warning')).toEqual([]);
  });

  it('warns once when input runs more than 2 s ahead of the wall clock', () => {
    const machine = started();
    const burst = machine.appendAudio(frames(30), T0); // 2.4 s at once
    expect(
      events(burst)
        .filter((e) => e.type === 'warning')
        .map((e) => e.type === 'warning' && e.code),
    ).toEqual(['input_faster_than_realtime']);
    expect(events(machine.appendAudio(frames(5), T0 + 10)).filter((e) => e.type === 'warning')).toEqual([]);
    expect(machine.usage.frames).toBe(35);
  });

  it('drops input beyond 5 s ahead, unmetered, and says so once per episode', () => {
    const machine = started();
    const effects = machine.appendAudio(frames(75), T0); // 6 s at once
    const codes = events(effects).flatMap((e) => (e.type === 'warning' ? [e.code] : []));
    expect(codes).toEqual(['input_faster_than_realtime', 'input_dropped', 'partial_frame']);
    expect(machine.usage.frames).toBe(62); // 5 s = 62.5 frames: the half frame waits in the carry
    expect(events(machine.appendAudio(frames(1), T0 + 1)).filter((e) => e.type === 'warning')).toEqual([]);
    expect(machine.usage.frames).toBe(62);
    // Once the client is back within tolerance, a new episode is reported again.
    machine.appendAudio(frames(1), T0 + 4000);
    const later = machine.appendAudio(frames(75), T0 + 4001);
    expect(events(later).flatMap((e) => (e.type === 'warning' ? [e.code] : []))).toEqual([
      'input_faster_than_realtime',
      'input_dropped',
    ]);
  });

  it('gives no credit for idle time', () => {
    const machine = started();
    const effects = machine.appendAudio(frames(75), T0 + 60_000);
    expect(events(effects).some((e) => e.type === 'warning' && e.code === 'input_dropped')).toBe(true);
  });
});

describe('SessionMachine metering', () => {
  it('meters in batches of at most ~1 s with increasing seq and reports usage every 4.8 s, after a batch', () => {
    const machine = started();
    const effects: Effect[] = [];
    for (let i = 0; i < 130; i++) effects.push(...machine.appendAudio(frames(1), T0 + i * 80));
    const meters = effects.flatMap((e) => (e.kind === 'meter' ? [e.batch] : []));
    // 10 frames (0.8 s) a batch: with the meter's wait to share a statement, a crash loses under 1 s.
    expect(meters.map((b) => b.seq)).toEqual(meters.map((_, i) => i + 1));
    expect(Math.max(...meters.map((b) => b.frames))).toBeLessThanOrEqual(10);
    expect(meters.reduce((n, b) => n + b.frames, 0)).toBe(130); // thirteen whole batches
    // Each in-band report equals the frames metered so far.
    let metered = 0;
    for (const e of effects) {
      if (e.kind === 'meter') metered += e.batch.frames;
      if (e.kind === 'emit' && e.event.type === 'usage') expect(e.event.usage.frames).toBe(metered);
    }
    const usages = events(effects).flatMap((e) => (e.type === 'usage' ? [e.usage] : []));
    expect(usages).toEqual([
      { frames: 60, seconds: 4.8 },
      { frames: 120, seconds: 9.6 },
    ]);
    // Reports fall on batch boundaries: every batch is a whole 10 frames.
    expect(meters.every((b) => b.frames === 10)).toBe(true);
  });

  it('makes the final usage equal the sum of every meter batch', () => {
    const machine = started();
    const all: Effect[] = [];
    let t = T0;
    for (const size of [5000, 3840 * 7, 12, 90_000, 3838, 2, 77_000]) {
      all.push(...machine.appendAudio(Buffer.alloc(size), t));
      t += 3000;
    }
    all.push(...machine.close({ kind: 'client', clientEventId: 'bye' }));
    all.push(...machine.finalized(t, NO_OUTPUT));
    const metered = all.reduce((sum, e) => sum + (e.kind === 'meter' ? e.batch.frames : 0), 0);
    const closed = events(all).find((e) => e.type === 'closed');
    const finalize = all.find((e) => e.kind === 'finalize');
    expect(closed).toMatchObject({ usage: { frames: metered }, clientEventId: 'bye' });
    expect(finalize).toMatchObject({ usage: { frames: metered } });
    expect(metered).toBe(Math.ceil((5000 + 3840 * 7 + 12 + 90_000 + 3838 + 2 + 77_000) / FRAME_BYTES));
  });
});
