import { FRAME_BYTES } from '../engine/engine.port';
import { DEFAULT_VAD } from '../model/defaults';
import type { Effect } from '../model/session.effects';
import type { SessionConfig } from '../model/session.types';
import { SessionMachine } from './session.machine';
import { LIVE_CONFIG } from '../testing/live-config';

const T0 = 1_767_225_600_000;
const CONVERSATION: SessionConfig = { ...LIVE_CONFIG, turnDetection: DEFAULT_VAD, conversation: true };

function kinds(effects: readonly Effect[]): string[] {
  return effects.map((e) => (e.kind === 'emit' ? `emit:${e.event.type}` : e.kind));
}
function started(config: SessionConfig): SessionMachine {
  const machine = new SessionMachine('sess_1');
  machine.start(config);
  machine.startSucceeded(T0);
  return machine;
}

describe('SessionMachine with interrupt_response: false (session config)', () => {
  it('lets a response play on when the user speaks over it: no interrupt, no flush, no hold', () => {
    const machine = started({ ...CONVERSATION, interruptResponse: false });
    machine.engineEvent({ type: 'response_started', itemId: 'out1' });
    expect(machine.engineEvent({ type: 'speech_suspected' })).toEqual([]);
    expect(kinds(machine.engineEvent({ type: 'speech_started', itemId: 'in2', audioStartMs: 4000 }))).toEqual([
      'emit:speech_started',
    ]);
    const pcm = Buffer.alloc(FRAME_BYTES);
    // The answer's audio still goes to the pacer, and it ends played out, not interrupted.
    expect(machine.engineEvent({ type: 'output_audio', itemId: 'out1', pcm })).toEqual([
      { kind: 'output_audio', itemId: 'out1', pcm },
    ]);
    expect(kinds(machine.engineEvent({ type: 'speech_stopped', itemId: 'in2', audioEndMs: 5000 }))).toEqual([
      'emit:speech_stopped',
    ]);
    expect(machine.engineEvent({ type: 'response_done', itemId: 'out1', interrupted: false })).toEqual([
      { kind: 'output_end', itemId: 'out1' },
    ]);
    expect(machine.outputDrained('out1')).toEqual([
      { kind: 'emit', event: { type: 'response_done', itemId: 'out1', interrupted: false } },
    ]);
  });

  it('changes it with an update at any time, even after audio, and barges in again once it is true', () => {
    const machine = started(CONVERSATION);
    machine.appendAudio(Buffer.alloc(FRAME_BYTES * 2), T0);
    const off = machine.update('u1', { turnDetection: DEFAULT_VAD, interruptResponse: false });
    expect(off).toEqual([
      {
        kind: 'emit',
        event: expect.objectContaining({ type: 'updated', clientEventId: 'u1' }) as unknown,
      },
    ]);
    expect(machine.session?.config.interruptResponse).toBe(false);
    machine.engineEvent({ type: 'response_started', itemId: 'out1' });
    expect(kinds(machine.engineEvent({ type: 'speech_started', itemId: 'in2', audioStartMs: 80 }))).toEqual([
      'emit:speech_started',
    ]);

    machine.update('u2', { turnDetection: DEFAULT_VAD, interruptResponse: true });
    expect(machine.session?.config.interruptResponse).toBe(true);
    expect(kinds(machine.engineEvent({ type: 'speech_started', itemId: 'in3', audioStartMs: 160 }))).toEqual([
      'emit:speech_started',
      'engine_interrupt',
      'output_flush',
      'emit:response_done',
    ]);
  });

  it('keeps the setting through an update that leaves it out, and refuses the whole update when it is too late for the engine', () => {
    const machine = started({ ...CONVERSATION, interruptResponse: false });
    machine.update(undefined, { language: 'auto' });
    expect(machine.session?.config.interruptResponse).toBe(false);
    machine.appendAudio(Buffer.alloc(FRAME_BYTES), T0);
    const refused = machine.update('u3', {
      turnDetection: { ...DEFAULT_VAD, threshold: 0.9 },
      interruptResponse: true,
    });
    expect(kinds(refused)).toEqual(['emit:error']);
    expect(machine.session?.config.interruptResponse).toBe(false);
  });

  it('leaves sessions that never set it (every other dialect) barging in as before', () => {
    const machine = started(CONVERSATION);
    machine.update('u1', { turnDetection: DEFAULT_VAD });
    expect('interruptResponse' in machine.session!.config).toBe(false);
    machine.engineEvent({ type: 'response_started', itemId: 'out1' });
    expect(kinds(machine.engineEvent({ type: 'speech_started', itemId: 'in2', audioStartMs: 0 }))).toContain(
      'engine_interrupt',
    );
  });
});
