import fc from 'fast-check';
import { EngineCapacityError, FRAME_BYTES, type EngineEventSink, type EngineStreamConfig } from '../engine/engine.port';
import type { ActivationResult, SessionActivation, SessionClosing } from './ports';
import { SessionRuntime } from './session.runtime';
import { DEFAULT_VAD } from '../model/defaults';
import type { SessionCommand } from '../model/session.commands';
import { FakeClock, settle } from '../testing/fake-clock';
import { FakeEngine, FakeMeter, FakeStore, FakeStream, FakeTransport, Gate } from '../testing/fakes';
import { runtimeOnFakes, unhandledRejections } from '../testing/runtime-on-fakes';
import { LIVE_CONFIG } from '../testing/live-config';

/**
 * A model-based property test of the runtime's hold/reopen/close orderings: random sequences of
 * client commands (start, an update that reopens the engine, append, mute, commit, close, a dialect's
 * own request, answered by the dialect as a conversation item is), the
 * socket's loss, a server-side end(), faults, failing or refused activations and slow stream closes,
 * interleaved with engine opens that complete (or fail) whenever the sequence says. After every step
 * and at the end: one engine open in flight at most, answers in the order the commands were sent,
 * never two closes recorded, one per activated session, every stream closed, `done` resolved, and no
 * unhandled rejection. FUZZ_SEED replays a run; FUZZ_RUNTIME_RUNS sets how many.
 */
const RUNS = Number(process.env.FUZZ_RUNTIME_RUNS ?? 500);
const ENGINE_CLOSE_TIMEOUT_MS = 3000;
const MAX_HELD = 12;

type OpenOutcome = 'ok' | 'fail' | 'capacity';

/** Every open waits until the sequence completes it; a second open in flight is counted, not refused. */
class GatedEngine extends FakeEngine {
  readonly pending: Gate<OpenOutcome>[] = [];
  inFlight = 0;
  maxInFlight = 0;
  slowCloses = false;

  override async open(config: EngineStreamConfig, sink: EngineEventSink): Promise<FakeStream> {
    const gate = new Gate<OpenOutcome>();
    this.pending.push(gate);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    let outcome: OpenOutcome;
    try {
      outcome = await gate.promise;
    } finally {
      this.inFlight--;
    }
    if (outcome === 'capacity') throw new EngineCapacityError(1000);
    if (outcome === 'fail') throw new Error('engine worker unreachable');
    const stream = new FakeStream(config, sink);
    // A stream whose close never answers: the runtime's close timeout must end the wait.
    if (this.slowCloses) stream.closeGate = new Gate<void>();
    this.streams.push(stream);
    return stream;
  }

  complete(outcome: OpenOutcome): void {
    this.pending.shift()?.resolve(outcome);
  }
}

/** Activations answer what the sequence asked for last, once; closes can be made to fail once. */
class ScriptedStore extends FakeStore {
  nextOutcome: 'ok' | 'refused' | 'throws' = 'ok';
  failNextClose = false;
  activated = 0;

  override async activate(sessionId: string, activation: SessionActivation): Promise<ActivationResult> {
    const outcome = this.nextOutcome;
    this.nextOutcome = 'ok';
    await settle();
    if (outcome === 'throws') throw new Error('connection terminated');
    if (outcome === 'refused') return { ok: false, code: 'concurrency_limit_exceeded', message: 'too many sessions' };
    const result = await super.activate(sessionId, activation);
    if (result.ok) this.activated++;
    return result;
  }

  override async close(sessionId: string, closing: SessionClosing): Promise<void> {
    await super.close(sessionId, closing); // recorded first: a failure after the write still counts as one
    if (this.failNextClose) {
      this.failNextClose = false;
      throw new Error('database unavailable');
    }
  }

  async reconfigure(): Promise<void> {
    await settle();
  }
}

interface Real {
  runtime: SessionRuntime;
  engine: GatedEngine;
  store: ScriptedStore;
  meter: FakeMeter;
  transport: FakeTransport;
  clock: FakeClock;
}

interface Model {
  /** The event ids of the client commands sent, in order, and whether each must be answered. */
  sent: { id: string; answered: boolean; close: boolean }[];
  transportLost: boolean;
}

const idOf = (event: Record<string, unknown>): string | undefined =>
  (event.clientEventId as string | undefined) ??
  ((event.error as { clientEventId?: string } | undefined)?.clientEventId as string | undefined);

/** The invariants that hold after any step. */
function checkAlways(m: Model, r: Real): void {
  expect(r.engine.maxInFlight).toBeLessThanOrEqual(1);
  expect(r.store.closings.length).toBeLessThanOrEqual(1);
  expect(r.transport.types().filter((type) => type === 'closed').length).toBeLessThanOrEqual(1);
  // Answers come in the order the commands were sent (a command may answer with several events).
  // Not `closed`: a close is answered once the session is recorded closed, and what is sent after
  // the close is refused (`session_closed`) meanwhile, at once.
  const order = new Map(m.sent.map((s, i) => [s.id, i]));
  const answered = r.transport.events.flatMap((e) => {
    const id = idOf(e);
    return id === undefined || e.type === 'closed' ? [] : [order.get(id) ?? -1];
  });
  const closedBy = r.transport.events.filter((e) => e.type === 'closed' && idOf(e) !== undefined).map(idOf);
  expect(closedBy.filter((id) => !m.sent.some((s) => s.id === id && s.close))).toEqual([]);
  expect(answered.every((i) => i >= 0)).toBe(true);
  expect(answered).toEqual([...answered].sort((a, b) => a - b));
}

abstract class Step implements fc.AsyncCommand<Model, Real> {
  check(): boolean {
    return true;
  }
  abstract run(m: Model, r: Real): Promise<void>;
  abstract toString(): string;
}

class Send extends Step {
  private static next = 0;
  constructor(
    private readonly make: (id: string) => SessionCommand,
    private readonly label?: string,
  ) {
    super();
  }
  async run(m: Model, r: Real): Promise<void> {
    this.send(m, r);
    checkAlways(m, r);
    await Promise.resolve();
  }
  send(m: Model, r: Real): void {
    const id = `c${Send.next++}`;
    if (this.make === dialectRequest) {
      // As the conversation dialect does: counted against the control rate, then run in the hold's order.
      const counted = r.runtime.control();
      m.sent.push({ id, answered: counted, close: false });
      if (counted)
        r.runtime.inOrder(() => r.runtime.sendDialectFrame(JSON.stringify({ type: 'item', clientEventId: id })));
      return;
    }
    const command = this.make(id);
    // Audio is not acknowledged; everything else is answered (or refused) by an event with its id.
    m.sent.push({ id, answered: command.type !== 'append', close: command.type === 'close' });
    r.runtime.handle(command);
  }
  toString(): string {
    return `send(${this.label ?? this.make('?').type})`;
  }
}

/** Several commands at once, no promise run between them: what fills the hold during a start or reopen. */
class Burst extends Step {
  constructor(private readonly sends: readonly Send[]) {
    super();
  }
  async run(m: Model, r: Real): Promise<void> {
    for (const send of this.sends) send.send(m, r);
    checkAlways(m, r);
    await Promise.resolve();
  }
  toString(): string {
    return `burst(${this.sends.length}: ${this.sends.map(String).join(' ')})`;
  }
}

class Act extends Step {
  constructor(
    private readonly name: string,
    private readonly act: (m: Model, r: Real) => void | Promise<void>,
  ) {
    super();
  }
  async run(m: Model, r: Real): Promise<void> {
    await this.act(m, r);
    checkAlways(m, r);
  }
  toString(): string {
    return this.name;
  }
}

/** Marks a Send as a dialect's own request (see Send.send): it is not a session command. */
const dialectRequest = (): SessionCommand => {
  throw new Error('a dialect request is sent through inOrder()');
};

const reopeningUpdate = (silenceDurationMs: number) => (id: string) =>
  ({ type: 'update', clientEventId: id, changes: { turnDetection: { ...DEFAULT_VAD, silenceDurationMs } } }) as const;

const sends: fc.Arbitrary<Send>[] = [
  fc.constant(new Send((id) => ({ type: 'start', config: LIVE_CONFIG, clientEventId: id }))),
  fc.constantFrom(300, 500, 700).map((ms) => new Send(reopeningUpdate(ms), `update reopening (${ms} ms)`)),
  fc.constant(new Send((id) => ({ type: 'update', clientEventId: id }), 'update (no change)')),
  fc
    .integer({ min: 1, max: 3 })
    .map((n) => new Send((id) => ({ type: 'append', audio: Buffer.alloc(FRAME_BYTES * n), clientEventId: id }))),
  fc.constant(new Send((id) => ({ type: 'mute', clientEventId: id }))),
  fc.constant(new Send((id) => ({ type: 'unmute', clientEventId: id }))),
  fc.constant(new Send((id) => ({ type: 'commit', clientEventId: id }))),
  fc.constant(new Send((id) => ({ type: 'close', clientEventId: id }))),
  fc.constant(new Send(dialectRequest, 'dialect request')),
];

const completeOpen = fc.constantFrom<OpenOutcome>('ok', 'ok', 'ok', 'fail', 'capacity').chain((outcome) =>
  // Most completions let their consequences land before the next step; some race the next command.
  fc.boolean().map(
    (land) =>
      new Act(`complete open (${outcome}${land ? '' : ', racing'})`, async (_m, r) => {
        r.engine.complete(outcome);
        if (land) await settle();
      }),
  ),
);

/** What ends a session around the hold: a start or reopen in flight does not hold these back. */
const serverSideEnd = fc.constantFrom(
  new Act('transport lost', (m, r) => {
    m.transportLost = true;
    r.runtime.transportClosed();
  }),
  new Act('end() (DELETE)', (_m, r) => void r.runtime.end({ kind: 'deleted' })),
  new Act('fault', (_m, r) => r.runtime.fault(new Error('handler threw'))),
);

const storeFailure = fc.constantFrom(
  new Act('next activation refused', (_m, r) => void (r.store.nextOutcome = 'refused')),
  new Act('next activation throws', (_m, r) => void (r.store.nextOutcome = 'throws')),
  new Act('next close fails', (_m, r) => void (r.store.failNextClose = true)),
);

/** fc.commands picks its arbitraries alike: the orderings that matter get more than one entry. */
const times = <T>(n: number, arbitrary: T): T[] => Array.from({ length: n }, () => arbitrary);

const steps: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] = [
  ...times(2, sends[0]),
  ...times(2, sends[1]),
  ...sends.slice(2),
  // Up to twice the hold: past it the session must end with a policy close, never run a command early.
  fc
    .array(fc.oneof({ weight: 3, arbitrary: sends[1] }, ...sends.slice(2, 7), sends[8]), {
      minLength: 4,
      maxLength: MAX_HELD * 2,
    })
    .map((burst) => new Burst(burst)),
  ...times(4, completeOpen),
  ...times(2, serverSideEnd),
  storeFailure,
  fc.constant(new Act('slow stream closes', (_m, r) => void (r.engine.slowCloses = true))),
  fc.constant(new Act('let promises run', () => settle())),
  fc.integer({ min: 10, max: 1500 }).map((ms) => new Act(`advance ${ms} ms`, (_m, r) => r.clock.advanceAsync(ms, 50))),
];

/**
 * Completes every open still waiting (a replayed update opens another) and lets time pass (a slow
 * stream close holds a reopen until its timeout), until no open has come for longer than that timeout.
 */
async function quiesce(r: Real): Promise<void> {
  const stepMs = 500;
  for (let quietMs = 0, i = 0; quietMs <= ENGINE_CLOSE_TIMEOUT_MS + stepMs && i < 400; i++) {
    quietMs = r.engine.pending.length === 0 ? quietMs + stepMs : 0;
    r.engine.complete('ok');
    await r.clock.advanceAsync(stepMs, 50);
  }
}

function setup(): { model: Model; real: Real } {
  const { runtime, engine, store, meter, transport, clock } = runtimeOnFakes({
    sessionId: 'sess_model',
    engine: new GatedEngine(),
    store: new ScriptedStore(),
    limits: { idleTimeoutMs: 30_000, maxSessionMs: 120_000, controlBurst: 1000 },
    tuning: { maxHeldEvents: MAX_HELD, engineCloseTimeoutMs: ENGINE_CLOSE_TIMEOUT_MS, meterRetryDelaysMs: [10] },
  });
  return { model: { sent: [], transportLost: false }, real: { runtime, engine, store, meter, transport, clock } };
}

describe('SessionRuntime against a model of its orderings', () => {
  const rejections = unhandledRejections();

  it(`holds its invariants over ${RUNS} random command sequences`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(steps, { maxCommands: 40, size: 'medium' }), async (commands) => {
        const { model, real: r } = setup();
        await fc.asyncModelRun(() => ({ model, real: r }), commands);

        // Quiet: nothing more to answer. A session still running has answered every command sent.
        await quiesce(r);
        checkAlways(model, r);
        if (r.runtime.phase === 'started' || r.runtime.phase === 'awaiting_start') {
          const answered = new Set(r.transport.events.map(idOf));
          expect(model.sent.filter((s) => s.answered && !answered.has(s.id)).map((s) => s.id)).toEqual([]);
        }

        // The server ends it (DELETE), as it ends every session in the end: `done` must resolve.
        const ended = r.runtime.end({ kind: 'deleted' });
        let done = false;
        void ended.then(() => (done = true));
        for (let i = 0; i < 200 && !done; i++) {
          r.engine.complete('ok');
          await r.clock.advanceAsync(100, 50);
        }
        expect(done).toBe(true);
        expect(r.runtime.phase).toBe('closed');
        checkAlways(model, r);
        // Exactly one close recorded per activated session, with the usage its meter batches add up to.
        if (r.store.activated > 0) expect(r.store.closings).toHaveLength(1);
        if (r.store.closings.length === 1) {
          const frames = r.meter.written.reduce((n, batch) => n + batch.frames, 0);
          expect(r.store.closings[0].closing.usage.frames).toBe(frames);
        }
        // A session closed with its socket open tells the client once; a lost socket hears nothing.
        if (r.store.activated > 0 && !model.transportLost) expect(r.transport.types().at(-1)).toBe('closed');
        expect(r.engine.streams.filter((s) => !s.calls.includes('close'))).toEqual([]);
        expect(r.engine.pending).toEqual([]);
        expect(rejections).toEqual([]);
      }),
      {
        numRuns: RUNS,
        seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
        reporter: (details) => {
          if (details.failed) {
            const cause = details.errorInstance instanceof Error ? details.errorInstance.message : '';
            throw new Error(`${fc.defaultReportMessage(details)}\n${cause}\nReplay with FUZZ_SEED=${details.seed}`);
          }
        },
      },
    );
  }, 120_000);
});
