import { SessionRegistry } from './session.registry';
import { SessionRuntime } from './session.runtime';
import { FakeClock, settle } from '../testing/fake-clock';
import { FakeEngine, FakeMeter, FakeStore, FakeTransport, JsonRenderer } from '../testing/fakes';
import { LIVE_CONFIG } from '../testing/live-config';

function runtime(sessionId: string, store: FakeStore, transport = new FakeTransport()): SessionRuntime {
  return new SessionRuntime({
    sessionId,
    engine: new FakeEngine(),
    store,
    meter: new FakeMeter(),
    transport,
    renderer: new JsonRenderer(),
    clock: new FakeClock(),
  });
}

const CONFIG = LIVE_CONFIG;

describe('SessionRegistry', () => {
  it('ends one session by id and forgets it once done', async () => {
    const store = new FakeStore();
    const registry = new SessionRegistry();
    const a = runtime('sess_a', store);
    registry.add(a);
    a.handle({ type: 'start', config: CONFIG });
    await settle();
    expect(await registry.end('sess_a', { kind: 'deleted' })).toBe(true);
    expect(store.closings.map((c) => [c.sessionId, c.closing.detail])).toEqual([['sess_a', 'session_deleted']]);
    await settle();
    expect(registry.size).toBe(0);
    expect(await registry.end('sess_a', { kind: 'deleted' })).toBe(false);
  });

  it('ends every session on shutdown and waits until each is recorded closed', async () => {
    const store = new FakeStore();
    const registry = new SessionRegistry();
    const sessions = ['sess_1', 'sess_2', 'sess_3'].map((id) => runtime(id, store));
    for (const s of sessions) {
      registry.add(s);
      s.handle({ type: 'start', config: CONFIG });
    }
    await settle();
    await registry.endAll({ kind: 'shutdown' });
    expect(store.closings.map((c) => c.sessionId).sort()).toEqual(['sess_1', 'sess_2', 'sess_3']);
    expect(store.closings.every((c) => c.closing.detail === 'server_shutdown')).toBe(true);
    expect(sessions.every((s) => s.phase === 'closed')).toBe(true);
  });
});
