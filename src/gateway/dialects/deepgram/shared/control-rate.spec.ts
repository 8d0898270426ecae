import { ScriptedEngine } from '../../../../engines/scripted/scripted.engine';
import { DEFAULT_TRANSCRIPTION_CONFIG } from '../../../../engines';
import { FakeClock, settle } from '../../../../session-core/testing/fake-clock';
import { FakeMeter, FakeStore, FakeTransport } from '../../../../session-core/testing/fakes';
import { FluxConnection } from '../flux/flux.connection';
import { parseFluxQuery } from '../flux/flux.query';
import { ListenConnection } from '../listen/listen.connection';
import { parseListenQuery } from '../listen/listen.query';

/**
 * Deepgram messages the dialect answers on its own (KeepAlive, a refused Configure, a ForceEndTurn with
 * no turn) cost the socket's control rate like any command: the stateful socket fuzz found a burst of
 * them passing the limit, each refused Configure answered with a ConfigureFailure.
 */
const LIMITS = { controlBurst: 20, controlPerSecond: 5 };

async function connect(dialect: 'listen' | 'flux') {
  const clock = new FakeClock();
  const store = new FakeStore();
  const transport = new FakeTransport();
  const common = {
    sessionId: 'sess_1',
    config: DEFAULT_TRANSCRIPTION_CONFIG,
    engine: new ScriptedEngine(),
    store,
    meter: new FakeMeter(store.log),
    transport,
    clock,
    limits: LIMITS,
  };
  const connection =
    dialect === 'listen'
      ? new ListenConnection({ ...common, listen: parseListenQuery('/v1/listen?encoding=linear16&sample_rate=24000') })
      : new FluxConnection({
          ...common,
          flux: parseFluxQuery('/v2/listen?model=flux-general-en&encoding=linear16&sample_rate=24000'),
        });
  await settle();
  expect(connection.runtime.phase).toBe('started');
  return { clock, store, transport, connection };
}

describe('Deepgram control messages answered by the dialect count against the control rate', () => {
  it.each([
    ['listen', '{"type":"KeepAlive"}'],
    ['flux', '{"type":"Configure","thresholds":{"eot_threshold":7}}'],
    ['flux', '{"type":"Configure","thresholds":{"eot_threshold":0.6,"eager_eot_threshold":0.8}}'],
    ['flux', '{"type":"ForceEndTurn"}'],
  ] as const)('%s: a burst of %s past the limit ends in a policy close', async (dialect, message) => {
    const { store, transport, connection } = await connect(dialect);
    for (let i = 0; i < 100; i++) connection.onMessage(message, false);
    await settle();
    expect(connection.runtime.phase).toBe('closed');
    expect(transport.closed).toEqual({ code: 1008, reason: 'control_rate_exceeded' });
    expect(store.closings.map((c) => [c.closing.reason, c.closing.detail])).toEqual([
      ['connection_lost', 'control_rate_exceeded'],
    ]);
    // At most one answer per token: nothing is sent for what came past the limit.
    expect(transport.types().filter((type) => type === 'ConfigureFailure').length).toBeLessThanOrEqual(
      LIMITS.controlBurst,
    );
  });

  it.each([
    ['listen', '{"type":"KeepAlive"}'],
    ['flux', '{"type":"Configure","thresholds":{"eot_threshold":7}}'],
  ] as const)('%s: %s within the rate goes on', async (dialect, message) => {
    const { clock, transport, connection } = await connect(dialect);
    for (let i = 0; i < 60; i++) {
      connection.onMessage(message, false);
      connection.onMessage(Buffer.alloc(3840), true); // audio keeps the idle rules away and costs no token
      clock.advance(250);
    }
    expect(connection.runtime.phase).toBe('started');
    expect(transport.closed).toBeNull();
  });
});
