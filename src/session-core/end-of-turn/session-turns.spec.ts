import type { EngineEvent } from '../engine/engine.port';
import type { Effect } from '../model/session.effects';
import { SessionMachine } from '../machine/session.machine';
import type { SessionConfig } from '../model/session.types';

const CONFIG: SessionConfig = {
  type: 'live',
  model: 'vendor-voicechat',
  voice: 'aria',
  language: 'auto',
  turnDetection: {
    type: 'server_vad',
    threshold: 0.5,
    silenceDurationMs: 500,
    prefixPaddingMs: 300,
    endOfTurn: { eotThreshold: 0.7, eagerEotThreshold: 0.4, eotTimeoutMs: 5000 },
  },
  outputEncoding: 'base64',
};

function machineWith(config: SessionConfig): SessionMachine {
  const machine = new SessionMachine('sess_1');
  machine.start(config);
  machine.startSucceeded(1_767_225_600_000);
  return machine;
}

function kinds(effects: readonly Effect[]): string[] {
  return effects.map((e) =>
    e.kind === 'emit' ? (e.event.type === 'turn' ? `turn:${e.event.phase}` : `emit:${e.event.type}`) : e.kind,
  );
}

const progress = (audioMs: number, silenceMs: number, hypothesis: string): EngineEvent => ({
  type: 'turn_progress',
  itemId: 'item_1',
  audioMs,
  silenceMs,
  hypothesis,
  hypothesisMs: audioMs,
  hypothesisFinal: true,
});

/** Feeds 32 ms progress reports from `fromMs` to `toMs`, silence counted from `voiceEndMs`. */
function feed(machine: SessionMachine, fromMs: number, toMs: number, voiceEndMs: number, text: string): string[] {
  const out: string[] = [];
  for (let ms = fromMs; ms <= toMs; ms += 32)
    out.push(...kinds(machine.engineEvent(progress(ms, Math.max(0, ms - voiceEndMs), text))));
  return out;
}

describe('SessionMachine with end-of-turn confidence', () => {
  it('announces an eager end, prepares the answer, drops it on resume, and commits the engine at the end', () => {
    const machine = machineWith(CONFIG);
    machine.engineEvent({ type: 'speech_started', itemId: 'item_1', audioStartMs: 0 });
    const paused = feed(machine, 32, 1160, 1000, 'i would like a pizza').filter((k) => k !== 'turn:update');
    expect(paused).toEqual(['turn:eager_end', 'engine_prepare']);
    // The user goes on ("…with cheese"), then stops for good.
    const more = feed(machine, 1184, 1800, 1800, 'i would like a pizza with').filter((k) => k !== 'turn:update');
    expect(more).toEqual(['turn:resumed', 'engine_discard_prepared']);
    const end = feed(machine, 1824, 2200, 1800, 'i would like a pizza with cheese').filter((k) => k !== 'turn:update');
    expect(end).toEqual(['turn:eager_end', 'engine_prepare', 'engine_commit']);

    const done = machine.engineEvent({
      type: 'input_transcript',
      itemId: 'item_1',
      delta: '',
      startMs: 0,
      endMs: 1800,
      done: true,
      transcript: 'i would like a pizza with cheese',
    });
    expect(kinds(done)).toEqual(['emit:input_transcript', 'turn:end']);
    const ended = done[1];
    expect(ended.kind === 'emit' && ended.event).toMatchObject({
      type: 'turn',
      phase: 'end',
      trigger: 'model',
      transcript: 'i would like a pizza with cheese',
    });
    // The end is where the session judged the turn over (a frame of the silence after 1800 ms), not
    // where the engine's item stopped.
    const endMs = ended.kind === 'emit' && ended.event.type === 'turn' ? ended.event.endMs : -1;
    expect(endMs).toBeGreaterThan(1800);
    expect(endMs).toBeLessThanOrEqual(2200);
    expect((endMs - 1824) % 32).toBe(0);
  });

  it('ends a turn on a manual commit with trigger manual', () => {
    const machine = machineWith(CONFIG);
    machine.appendAudio(Buffer.alloc(3840), 0);
    machine.engineEvent({ type: 'speech_started', itemId: 'item_1', audioStartMs: 0 });
    feed(machine, 32, 320, 1000, 'hello');
    expect(kinds(machine.commit())).toEqual(['engine_commit', 'emit:input_committed']);
    const done = machine.engineEvent({
      type: 'input_transcript',
      itemId: 'item_1',
      delta: '',
      startMs: 0,
      endMs: 320,
      done: true,
      transcript: 'hello',
    });
    expect(done[1]).toMatchObject({ kind: 'emit', event: { type: 'turn', phase: 'end', trigger: 'manual' } });
  });

  it('changes thresholds at once (Configure) and leaves fixed-silence sessions without turn events', () => {
    const machine = machineWith(CONFIG);
    machine.configureTurns({ eotThreshold: 1, eagerEotThreshold: null, eotTimeoutMs: 600 });
    machine.engineEvent({ type: 'speech_started', itemId: 'item_1', audioStartMs: 0 });
    expect(feed(machine, 32, 1700, 1000, 'hello there').filter((k) => k !== 'turn:update')).toEqual(['engine_commit']);
    expect(machine.session?.config.turnDetection?.endOfTurn?.eotTimeoutMs).toBe(600);

    const fixed = machineWith({ ...CONFIG, turnDetection: { ...CONFIG.turnDetection!, endOfTurn: null } });
    fixed.engineEvent({ type: 'speech_started', itemId: 'item_1', audioStartMs: 0 });
    expect(feed(fixed, 32, 1500, 1000, 'hello there')).toEqual([]);
    const done = fixed.engineEvent({
      type: 'input_transcript',
      itemId: 'item_1',
      delta: '',
      startMs: 0,
      endMs: 1000,
      done: true,
      transcript: 'hello there',
    });
    expect(kinds(done)).toEqual(['emit:input_transcript']);
  });
});
