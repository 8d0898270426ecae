import fc from 'fast-check';
import { FRAME_BYTES } from '../engine/engine.port';
import type { Effect } from '../model/session.effects';
import type { ServerEvent } from '../model/session.events';
import { SessionMachine } from './session.machine';
import { LIVE_CONFIG } from '../testing/live-config';

const T0 = 1_767_225_600_000;
const CONFIG = LIVE_CONFIG;
const OUTPUT = { framesSent: 40, framesDropped: 2, warnings: 1 };

function events(effects: readonly Effect[]): ServerEvent[] {
  return effects.flatMap((e) => (e.kind === 'emit' ? [e.event] : []));
}
function kinds(effects: readonly Effect[]): string[] {
  return effects.map((e) => (e.kind === 'emit' ? `emit:${e.event.type}` : e.kind));
}
function started(limits = {}): SessionMachine {
  const machine = new SessionMachine('sess_1', limits);
  machine.start(CONFIG);
  machine.startSucceeded(T0);
  return machine;
}

describe('SessionMachine closing', () => {
  it('closes on session.close: the dialect’s last work, final meter, usage, output flush, engine close, then finalize', () => {
    const machine = started();
    machine.appendAudio(Buffer.alloc(FRAME_BYTES * 3), T0);
    const effects = machine.close({ kind: 'client', clientEventId: 'c9' });
    expect(kinds(effects)).toEqual(['ending', 'meter', 'emit:usage', 'output_flush', 'engine_close', 'finalize']);
    expect(effects[1]).toEqual({ kind: 'meter', batch: { seq: 1, frames: 3 } });
    expect(effects.at(-1)).toEqual({
      kind: 'finalize',
      reason: 'close_requested',
      detail: 'client_requested',
      usage: { frames: 3, seconds: 0.24 },
    });
    expect(machine.phase).toBe('closing');
  });

  it('sends exactly one closed, then close code 1000, and nothing afterwards', () => {
    const machine = started();
    machine.close({ kind: 'client', clientEventId: 'c9' });
    expect(machine.close({ kind: 'client' })).toEqual([]);
    expect(machine.close({ kind: 'transport_lost' })).toEqual([]);
    const effects = machine.finalized(T0 + 5000, OUTPUT);
    expect(kinds(effects)).toEqual(['emit:closed', 'transport_close']);
    expect(events(effects)[0]).toMatchObject({
      type: 'closed',
      reason: 'close_requested',
      detail: 'client_requested',
      clientEventId: 'c9',
      usage: { frames: 0, seconds: 0 },
      session: { id: 'sess_1' },
      stats: { durationMs: 5000, outputFrames: 40, outputDroppedFrames: 2, warnings: 1 },
    });
    expect(effects[1]).toEqual({ kind: 'transport_close', code: 1000, reason: 'client_requested' });
    expect(machine.phase).toBe('closed');
    expect(machine.finalized(T0, OUTPUT)).toEqual([]);
    expect(machine.appendAudio(Buffer.alloc(FRAME_BYTES), T0)).toEqual([]);
    expect(machine.reject('invalid_json', 'x', null)).toEqual([]);
    expect(machine.engineEvent({ type: 'speech_started', itemId: 'i', audioStartMs: 0 })).toEqual([]);
  });

  it('refuses client events while closing with session_closed', () => {
    const machine = started();
    machine.close({ kind: 'expired' });
    expect(events(machine.commit('a'))[0]).toMatchObject({
      type: 'error',
      error: { code: 'session_closed', clientEventId: 'a' },
    });
    expect(events(machine.start(CONFIG))[0]).toMatchObject({ type: 'error', error: { code: 'session_closed' } });
  });

  it('drops audio that arrives while closing, unanswered and unmetered', () => {
    const machine = started();
    machine.appendAudio(Buffer.alloc(FRAME_BYTES), T0);
    machine.close({ kind: 'deleted' });
    expect(machine.appendAudio(Buffer.alloc(FRAME_BYTES * 3), T0, 'late')).toEqual([]);
    expect(machine.usage.frames).toBe(1);
  });

  it('expires at the maximum duration and not before', () => {
    const machine = started({ maxSessionMs: 10_000 });
    expect(machine.tick(T0 + 9_999)).toEqual([]);
    const effects = machine.tick(T0 + 10_000);
    expect(effects.at(-1)).toMatchObject({ kind: 'finalize', reason: 'expired', detail: 'max_duration_reached' });
    expect(machine.tick(T0 + 20_000)).toEqual([]);
    expect(machine.finalized(T0 + 10_001, OUTPUT).at(-1)).toEqual({
      kind: 'transport_close',
      code: 1000,
      reason: 'max_duration_reached',
    });
  });

  it('records a dropped socket as connection_lost and sends nothing to it', () => {
    const machine = started();
    machine.appendAudio(Buffer.alloc(FRAME_BYTES), T0);
    const effects = machine.close({ kind: 'transport_lost' });
    expect(kinds(effects)).toEqual(['ending', 'meter', 'output_flush', 'engine_close', 'finalize']);
    expect(effects.at(-1)).toMatchObject({ reason: 'connection_lost', detail: 'client_disconnected' });
    expect(machine.finalized(T0, OUTPUT)).toEqual([]);
    expect(machine.phase).toBe('closed');
  });

  it.each([
    [{ kind: 'deleted' } as const, 'close_requested', 'session_deleted', 1000],
    [{ kind: 'key_revoked' } as const, 'close_requested', 'key_revoked', 1008],
    [{ kind: 'shutdown' } as const, 'connection_lost', 'server_shutdown', 1001],
    [{ kind: 'engine_failed', message: 'boom' } as const, 'connection_lost', 'engine_failed', 1011],
    [{ kind: 'client_not_reading' } as const, 'connection_lost', 'client_not_reading', 1008],
    [{ kind: 'idle' } as const, 'expired', 'idle_timeout', 1011],
  ])('maps %o to reason %s, detail %s and close code %i', (cause, reason, detail, code) => {
    const machine = started();
    machine.close(cause);
    const effects = machine.finalized(T0, OUTPUT);
    expect(events(effects)[0]).toMatchObject({ type: 'closed', reason, detail });
    expect(effects.at(-1)).toEqual({ kind: 'transport_close', code, reason: detail });
  });
});

describe('SessionMachine engine events', () => {
  it('ignores engine events before the session started', () => {
    const machine = new SessionMachine('s');
    machine.start(CONFIG);
    expect(machine.engineEvent({ type: 'speech_started', itemId: 'i', audioStartMs: 0 })).toEqual([]);
  });

  it('passes input transcripts and turn events through', () => {
    const machine = started();
    expect(events(machine.engineEvent({ type: 'speech_started', itemId: 'in1', audioStartMs: 160 }))).toEqual([
      { type: 'speech_started', itemId: 'in1', startMs: 160 },
    ]);
    const delta = { itemId: 'in1', delta: 'one', startMs: 160, endMs: 560, done: false };
    expect(events(machine.engineEvent({ type: 'input_transcript', ...delta }))).toEqual([
      { type: 'input_transcript', ...delta },
    ]);
    expect(events(machine.engineEvent({ type: 'speech_stopped', itemId: 'in1', audioEndMs: 900 }))).toEqual([
      { type: 'speech_stopped', itemId: 'in1', endMs: 900 },
    ]);
  });

  it('reports engine errors as non-fatal server errors', () => {
    const machine = started();
    expect(events(machine.engineEvent({ type: 'error', code: 'decoder', message: 'glitch' }))).toEqual([
      { type: 'error', error: { code: 'engine_error', message: 'decoder: glitch', param: null, origin: 'server' } },
    ]);
    expect(machine.phase).toBe('started');
  });

  it('hands a response to the pacer and reports it done once drained', () => {
    const machine = started();
    const pcm = Buffer.alloc(FRAME_BYTES);
    expect(events(machine.engineEvent({ type: 'response_started', itemId: 'out1' }))).toEqual([
      { type: 'response_started', itemId: 'out1' },
    ]);
    expect(machine.engineEvent({ type: 'output_audio', itemId: 'out1', pcm })).toEqual([
      { kind: 'output_audio', itemId: 'out1', pcm },
    ]);
    expect(
      machine.engineEvent({
        type: 'output_transcript',
        itemId: 'out1',
        delta: 'hi',
        startMs: 0,
        endMs: 80,
        done: true,
        transcript: 'hi',
      }),
    ).toEqual([
      { kind: 'output_transcript', itemId: 'out1', delta: 'hi', startMs: 0, endMs: 80, done: true, transcript: 'hi' },
    ]);
    expect(machine.engineEvent({ type: 'response_done', itemId: 'out1', interrupted: false })).toEqual([
      { kind: 'output_end', itemId: 'out1' },
    ]);
    expect(events(machine.outputDrained('out1'))).toEqual([
      { type: 'response_done', itemId: 'out1', interrupted: false },
    ]);
    expect(machine.outputDrained('out1')).toEqual([]);
  });

  it('barges in: speech during a response interrupts the engine, flushes output and drops the rest of it', () => {
    const machine = started();
    machine.engineEvent({ type: 'response_started', itemId: 'out1' });
    const effects = machine.engineEvent({ type: 'speech_started', itemId: 'in2', audioStartMs: 4000 });
    expect(kinds(effects)).toEqual(['emit:speech_started', 'engine_interrupt', 'output_flush', 'emit:response_done']);
    expect(events(effects)[1]).toEqual({ type: 'response_done', itemId: 'out1', interrupted: true });
    expect(machine.engineEvent({ type: 'output_audio', itemId: 'out1', pcm: Buffer.alloc(2) })).toEqual([]);
    expect(machine.engineEvent({ type: 'response_done', itemId: 'out1', interrupted: true })).toEqual([]);
    expect(machine.engineEvent({ type: 'response_started', itemId: 'out1' })).toEqual([]);
    expect(kinds(machine.engineEvent({ type: 'speech_started', itemId: 'in3', audioStartMs: 5000 }))).toEqual([
      'emit:speech_started',
    ]);
  });

  it('holds output while speech is only suspected over a response, and lets it go when ruled out', () => {
    const machine = started();
    expect(machine.engineEvent({ type: 'speech_suspected' })).toEqual([]); // nothing playing
    expect(machine.engineEvent({ type: 'speech_ruled_out' })).toEqual([]);
    machine.engineEvent({ type: 'response_started', itemId: 'out1' });
    expect(kinds(machine.engineEvent({ type: 'speech_suspected' }))).toEqual(['output_hold']);
    expect(kinds(machine.engineEvent({ type: 'speech_ruled_out' }))).toEqual(['output_release']);
    expect(machine.engineEvent({ type: 'speech_ruled_out' })).toEqual([]);
    // Confirmed: the barge-in's flush ends the hold; nothing is released afterwards.
    machine.engineEvent({ type: 'speech_suspected' });
    const effects = machine.engineEvent({ type: 'speech_started', itemId: 'in2', audioStartMs: 4000 });
    expect(kinds(effects)).toEqual(['emit:speech_started', 'engine_interrupt', 'output_flush', 'emit:response_done']);
    expect(machine.engineEvent({ type: 'speech_ruled_out' })).toEqual([]);
  });

  it('barges in on a response that is only still playing', () => {
    const machine = started();
    machine.engineEvent({ type: 'response_started', itemId: 'out1' });
    machine.engineEvent({ type: 'response_done', itemId: 'out1', interrupted: false });
    const effects = machine.engineEvent({ type: 'speech_started', itemId: 'in2', audioStartMs: 0 });
    expect(events(effects)).toContainEqual({ type: 'response_done', itemId: 'out1', interrupted: true });
    expect(machine.outputDrained('out1')).toEqual([]);
  });

  it('lets an unfinished response play out when the engine starts the next one', () => {
    const machine = started();
    machine.engineEvent({ type: 'response_started', itemId: 'out1' });
    expect(kinds(machine.engineEvent({ type: 'response_started', itemId: 'out2' }))).toEqual([
      'output_end',
      'emit:response_started',
    ]);
    expect(events(machine.outputDrained('out1'))).toEqual([
      { type: 'response_done', itemId: 'out1', interrupted: false },
    ]);
  });

  it('keeps final transcripts while closing but drops output', () => {
    const machine = started();
    machine.close({ kind: 'client' });
    const transcript = {
      type: 'input_transcript' as const,
      itemId: 'i',
      delta: '',
      startMs: 0,
      endMs: 80,
      done: true,
      transcript: 'one',
    };
    expect(events(machine.engineEvent(transcript))).toHaveLength(1);
    expect(machine.engineEvent({ type: 'response_started', itemId: 'o' })).toEqual([]);
    expect(machine.engineEvent({ type: 'speech_started', itemId: 'j', audioStartMs: 0 }).map((e) => e.kind)).toEqual([
      'emit',
    ]);
  });

  it('counts turns, responses, interruptions, warnings and errors in the closing stats', () => {
    const machine = started();
    machine.appendAudio(Buffer.alloc(100), T0); // partial_frame warning
    machine.mute('x');
    machine.commit(); // error: empty commit
    machine.engineEvent({ type: 'speech_started', itemId: 'a', audioStartMs: 0 });
    machine.engineEvent({ type: 'response_started', itemId: 'r' });
    machine.engineEvent({ type: 'speech_started', itemId: 'b', audioStartMs: 100 });
    machine.close({ kind: 'client' });
    const closed = events(machine.finalized(T0 + 2000, OUTPUT))[0];
    expect(closed).toMatchObject({
      stats: { durationMs: 2000, inputFrames: 1, turns: 2, responses: 1, interruptions: 1, warnings: 2, errors: 1 },
    });
  });
});

describe('SessionMachine metering properties', () => {
  it('meters every accepted byte exactly once, in batches of at most 10 frames (0.8 s) with seq 1, 2, 3…', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ samples: fc.integer({ min: 0, max: 20_000 }), gapMs: fc.integer({ min: 0, max: 3000 }) }),
          { maxLength: 60 },
        ),
        (appends) => {
          const machine = started();
          const all: Effect[] = [];
          let t = T0;
          let accepted = 0;
          for (const { samples, gapMs } of appends) {
            t += gapMs;
            all.push(...machine.appendAudio(Buffer.alloc(samples * 2), t));
          }
          accepted = machine.usage.frames;
          all.push(...machine.close({ kind: 'client' }), ...machine.finalized(t, OUTPUT));
          const batches = all.flatMap((e) => (e.kind === 'meter' ? [e.batch] : []));
          expect(batches.map((b) => b.seq)).toEqual(batches.map((_b, i) => i + 1));
          expect(batches.every((b) => b.frames > 0 && b.frames <= 10)).toBe(true);
          const closed = events(all).find((e) => e.type === 'closed');
          const total = batches.reduce((sum, b) => sum + b.frames, 0);
          expect(closed).toMatchObject({ usage: { frames: total, seconds: (total * 80) / 1000 } });
          expect(total - accepted).toBeLessThanOrEqual(1); // only the final partial frame is added at close
        },
      ),
      { numRuns: 200 },
    );
  });
});
