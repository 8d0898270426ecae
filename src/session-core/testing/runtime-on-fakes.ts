/** The session runtime on the fakes, as the runtime's specs build it: each gives what it varies. */
import type { SpeechEngine } from '../engine/engine.port';
import type { SessionRuntimeOptions } from '../runtime/runtime-options';
import { SessionRuntime } from '../runtime/session.runtime';
import { FakeClock } from './fake-clock';
import { FakeMeter, FakeStore, FakeTransport, JsonRenderer } from './fakes';

export type FakeRuntimeParts<E extends SpeechEngine, S extends FakeStore> = {
  readonly engine: E;
  readonly store: S;
} & Partial<Pick<SessionRuntimeOptions, 'sessionId' | 'renderer' | 'limits' | 'tuning'>>;

/** Its meter logs into the store's log, so a spec reads one order of writes; `logged` holds what it logs. */
export function runtimeOnFakes<E extends SpeechEngine, S extends FakeStore>(parts: FakeRuntimeParts<E, S>) {
  const { engine, store } = parts;
  const clock = new FakeClock();
  const meter = new FakeMeter(store.log);
  const transport = new FakeTransport();
  const logged: string[] = [];
  const runtime = new SessionRuntime({
    sessionId: 'sess_1',
    renderer: new JsonRenderer(),
    ...parts,
    meter,
    transport,
    clock,
    logger: { warn: (m) => logged.push(m), error: (m) => logged.push(m) },
  });
  return { runtime, engine, store, meter, transport, clock, logged };
}

/** The unhandled rejections met during each test of the describe block it is called in (none, as a rule). */
export function unhandledRejections(): unknown[] {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  beforeEach(() => {
    rejections.length = 0;
    process.on('unhandledRejection', onRejection);
  });
  afterEach(() => {
    process.off('unhandledRejection', onRejection);
  });
  return rejections;
}
