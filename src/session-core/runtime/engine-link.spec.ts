import { EngineCapacityError } from '../engine/engine.port';
import type { CloseCause } from '../model/close-causes';
import { FakeClock, settle } from '../testing/fake-clock';
import { FakeEngine, Gate } from '../testing/fakes';
import { LIVE_CONFIG } from '../testing/live-config';
import { EngineLink } from './engine-link';

const CLOSE_TIMEOUT_MS = 2_000;

function setup() {
  const clock = new FakeClock();
  const engine = new FakeEngine();
  const logged: string[] = [];
  const events: string[] = [];
  const lost: CloseCause[] = [];
  const link = new EngineLink(
    'sess_1',
    engine,
    clock,
    { warn: (m) => logged.push(m), error: (m) => logged.push(m) },
    CLOSE_TIMEOUT_MS,
    { event: (event) => events.push(event.type), lost: (cause) => lost.push(cause) },
  );
  return { clock, engine, link, logged, events, lost };
}

describe('EngineLink', () => {
  it('refuses a start for capacity as capacity_exhausted, any other failure as internal_error (logged)', async () => {
    const s = setup();
    s.engine.openError = new EngineCapacityError(1000);
    expect(await s.link.openForStart(LIVE_CONFIG)).toMatchObject({
      ok: false,
      failure: { code: 'capacity_exhausted' },
    });
    s.engine.openError = new Error('model file missing');
    expect(await s.link.openForStart(LIVE_CONFIG)).toMatchObject({ ok: false, failure: { code: 'internal_error' } });
    expect(s.logged.join('\n')).toContain('model file missing');
  });

  it('calls only an attached stream; a call that throws loses it once, and later calls do nothing', async () => {
    const s = setup();
    const opened = await s.link.openForStart(LIVE_CONFIG);
    if (!opened.ok) throw new Error('not opened');
    s.link.call((stream) => stream.pushAudio(Buffer.alloc(2)));
    expect(s.engine.last.calls).toEqual([]);
    s.link.attach(opened.stream);
    s.engine.last.throwOnPush = true;
    s.link.call((stream) => stream.pushAudio(Buffer.alloc(2)));
    s.link.call((stream) => stream.pushAudio(Buffer.alloc(2)));
    s.link.call((stream) => stream.commit());
    expect(s.lost).toEqual([{ kind: 'engine_failed', message: 'engine crashed' }]);
    expect(s.engine.last.calls).not.toContain('commit');
  });

  it("passes the engine's events on and loses the stream on a fatal one", async () => {
    const s = setup();
    await s.link.open(LIVE_CONFIG);
    s.engine.last.sink({ type: 'error', code: 'worker_lost', message: 'worker gone', fatal: true });
    s.engine.last.sink({ type: 'error', code: 'worker_lost', message: 'again', fatal: true });
    expect(s.events).toEqual(['error', 'error']);
    expect(s.lost).toEqual([{ kind: 'engine_unavailable', message: 'worker gone' }]);
  });

  it('replaces a stream: the old one is closed before the new one opens, and is not closed again at the end', async () => {
    const s = setup();
    s.link.attach(await s.link.open(LIVE_CONFIG));
    const first = s.engine.last;
    const next = await s.link.replace(LIVE_CONFIG);
    expect(first.calls).toEqual(['close']);
    expect(s.engine.streams).toHaveLength(2);
    await s.link.close();
    expect(first.calls).toEqual(['close']);
    s.link.attach(next);
    await s.link.close();
    expect(s.engine.last.calls).toEqual(['close']);
  });

  it('a replacement whose old stream never closes rejects after the time limit', async () => {
    const s = setup();
    s.link.attach(await s.link.open(LIVE_CONFIG));
    s.engine.last.closeGate = new Gate<void>();
    const replaced = s.link.replace(LIVE_CONFIG);
    s.clock.advance(CLOSE_TIMEOUT_MS);
    await expect(replaced).rejects.toThrow(`timed out after ${CLOSE_TIMEOUT_MS} ms`);
    expect(s.engine.streams).toHaveLength(1);
  });

  it('a close that never finishes is logged after the time limit, and the session end goes on', async () => {
    const s = setup();
    s.link.attach(await s.link.open(LIVE_CONFIG));
    s.engine.last.closeGate = new Gate<void>();
    const closed = s.link.close();
    await settle();
    s.clock.advance(CLOSE_TIMEOUT_MS);
    await closed;
    expect(s.logged).toEqual([`session sess_1: engine close: timed out after ${CLOSE_TIMEOUT_MS} ms`]);
  });

  it('responds only through a usable stream that can', async () => {
    const s = setup();
    const request = { responseId: 'resp_1' } as Parameters<EngineLink['respond']>[0];
    expect(s.link.respond(request, () => undefined)).toBe(false);
    const stream = await s.link.open(LIVE_CONFIG);
    s.link.attach(stream);
    expect(s.link.respond(request, () => undefined)).toBe(false); // the fake has no respond()
    const asked: string[] = [];
    Object.assign(stream, { respond: (r: typeof request) => asked.push(r.responseId) });
    expect(s.link.respond(request, () => undefined)).toBe(true);
    s.link.lose({ kind: 'engine_failed', message: 'gone' });
    expect(s.link.respond(request, () => undefined)).toBe(false);
    expect(asked).toEqual(['resp_1']);
  });
});
