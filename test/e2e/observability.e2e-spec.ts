import { silence, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { createSecret } from './client-secrets-fixtures';

const START = { type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } };

/** The value of one sample in a Prometheus exposition (labels in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[4]);
  }
  return undefined;
}

describe.each(databaseTargets())('observability on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  let projectId: string;
  beforeAll(async () => {
    t = await startTestApp(target, { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' } });
    ({ apiKey, projectId } = await t.newProject());
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('counts sessions, refusals, audio, latency, engine streams and pool use; logs one line per session end', async () => {
    const wsUrl = `${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`;
    const secret = (await createSecret(t, apiKey)).json() as { value: string; session: { id: string } };
    const c = await SocketClient.open(`${wsUrl}?token=${encodeURIComponent(secret.value)}`);
    c.send({ type: 'session.start', session: { model: 'vendor-voicechat' } });
    await c.waitFor('session.started');
    c.send({ type: 'session.input_audio.append', audio: Buffer.concat([tone(800), silence(800)]).toString('base64') });
    // The persona answers once the utterance's transcript is final.
    await c.waitFor('session.output_audio.delta');
    c.send({ type: 'session.close' });
    await c.waitFor('session.closed');
    await c.waitClosed();
    // Refusals: a bad key on a socket and on the secret route, and a socket while the engine is fine.
    await SocketClient.refusal(wsUrl, { headers: { authorization: 'Bearer wk_nope' } });
    expect((await createSecret(t, 'wk_nope')).statusCode).toBe(401);

    const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
    const live = { dialect: 'live', model: 'vendor-voicechat' };
    expect(sample(text, 'continuum_sessions_opened_total', live)).toBe(1);
    expect(sample(text, 'continuum_sessions_closed_total', { ...live, reason: 'close_requested' })).toBe(1);
    expect(sample(text, 'continuum_refusals_total', { surface: 'handshake', code: 'invalid_api_key' })).toBe(1);
    expect(sample(text, 'continuum_refusals_total', { surface: 'secret', code: 'invalid_api_key' })).toBe(1);
    expect(sample(text, 'continuum_audio_seconds_total', { direction: 'in' })).toBeCloseTo(1.6, 5);
    expect(sample(text, 'continuum_time_to_first_partial_seconds_count', { model: 'vendor-voicechat' })).toBe(1);
    expect(sample(text, 'continuum_time_to_final_seconds_count', { model: 'vendor-voicechat' })).toBe(1);
    expect(sample(text, 'continuum_engine_streams_in_use', { engine: 'scripted' })).toBe(0);
    expect(sample(text, 'continuum_engine_streams_free', { engine: 'scripted' })).toBe(t.config.engineMaxStreams);
    expect(sample(text, 'continuum_meter_flush_lag_seconds')).toBe(0);
    expect(sample(text, 'continuum_meter_write_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'continuum_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);

    const ended = t.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'session ended');
    expect(ended).toEqual([
      expect.objectContaining({
        level: 30,
        sessionId: secret.session.id,
        projectId,
        model: 'vendor-voicechat',
        dialect: 'live',
        frames: 20,
        closeReason: 'close_requested',
        durationMs: expect.any(Number),
      }),
    ]);
    const all = t.logs.join('');
    expect(all).not.toContain(secret.value);
    expect(all).not.toContain(apiKey);
  }, 60_000);

  it('the engine streams gauge follows live sessions', async () => {
    const c = await SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    c.send(START);
    await c.waitFor('session.started');
    const during = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(sample(during, 'continuum_engine_streams_in_use', { engine: 'scripted' })).toBe(1);
    expect(sample(during, 'continuum_sessions_open', { dialect: 'live' })).toBe(1);
    c.send({ type: 'session.close' });
    await c.waitClosed();
  }, 30_000);
});
