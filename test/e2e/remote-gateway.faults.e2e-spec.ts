/**
 * Worker faults seen from a client of the gateway (realtime socket, manual turns): a worker that
 * dies mid-utterance with another one ready (the session goes on, the audio is billed once), one
 * that dies with none left (the session ends as engine_unavailable with its usage), and no worker
 * at all (a clear refusal with retry_after_ms at secret creation and at the handshake).
 */
import { chunks, sleep, tone } from '../support/audio';
import { FakeVllmWorker } from '../support/fake-vllm-worker';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

function engines(workers: string[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    engines: {
      asr: {
        kind: 'remote',
        protocol: 'vllm-realtime',
        workers,
        model: 'voxtral',
        sampleRate: 16000,
        languages: ['en', 'fr'],
        stallTimeoutMs: 500,
        connectTimeoutMs: 500,
        backoffMinMs: 5000,
        ...extra,
      },
      local: { kind: 'scripted' },
    },
    models: { 'vendor-asr-streaming': 'asr', 'vendor-voicechat': 'local' },
  });
}

describe.each(databaseTargets())('gateway faults with vLLM workers on %s', (target) => {
  const fakes: FakeVllmWorker[] = [];
  let t: TestApp | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
    await Promise.all(fakes.splice(0).map((f) => f.stop()));
  });

  async function gateway(workers: string[], extra: Record<string, unknown> = {}) {
    t = await startTestApp(target, { env: { ENGINES_JSON: engines(workers, extra) } });
    const { apiKey } = await t.newProject();
    return { t, apiKey };
  }

  async function openManual(app: TestApp, apiKey: string): Promise<SocketClient> {
    const c = await SocketClient.open(`${app.baseUrl.replace('http', 'ws')}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    c.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { turn_detection: null } } } });
    await c.waitFor('session.updated');
    return c;
  }

  async function closedSession(app: TestApp, apiKey: string, id: string): Promise<any> {
    for (let i = 0; i < 100; i++) {
      const res = await app.app.inject({
        method: 'GET',
        url: `/v1/sessions/${id}`,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (res.json().status === 'closed') return res.json();
      await sleep(50);
    }
    throw new Error('the session did not close');
  }

  it('moves the session to a second worker when the first dies mid-utterance, and bills the audio once', async () => {
    const bad = await FakeVllmWorker.start({ fault: 'die', faultAfterMs: 500 });
    const good = await FakeVllmWorker.start();
    fakes.push(bad, good);
    const { t: app, apiKey } = await gateway([bad.url, good.url], { healthPath: null });
    const c = await openManual(app, apiKey);
    const sessionId = c.events[0].session.id;
    for (const frame of chunks(tone(1200), 80)) {
      c.send({ type: 'input_audio_buffer.append', audio: frame.toString('base64') });
      await sleep(10);
    }
    c.send({ type: 'input_audio_buffer.commit' });
    const done = await c.waitFor('conversation.item.input_audio_transcription.completed');
    expect(done.transcript).toBe('w1 w2 w3');
    expect(bad.sessions).toHaveLength(1);
    expect(good.sessions[0].generations).toHaveLength(1);
    c.ws.close(1000);
    const session = await closedSession(app, apiKey, sessionId);
    expect(session).toMatchObject({ close_reason: 'close_requested', usage: { frames: 15, seconds: 1.2 } });
  });

  it('ends the session as engine_unavailable, with its usage, when no worker can take it over', async () => {
    const bad = await FakeVllmWorker.start({ fault: 'garbage', faultAfterMs: 300 });
    fakes.push(bad);
    const { t: app, apiKey } = await gateway([bad.url], { healthPath: null });
    const c = await openManual(app, apiKey);
    const sessionId = c.events[0].session.id;
    for (const frame of chunks(tone(800), 80))
      c.send({ type: 'input_audio_buffer.append', audio: frame.toString('base64') });
    expect(await c.waitClosed()).toBe(1011);
    expect(c.ofType('error').map((e) => e.error.message)).toContainEqual(expect.stringContaining('engine_unavailable'));
    const session = await closedSession(app, apiKey, sessionId);
    expect(session).toMatchObject({ close_reason: 'connection_lost', usage: { frames: 10, seconds: 0.8 } });
  });

  it('refuses new sessions with capacity_exhausted and retry_after_ms while every worker is down', async () => {
    const gone = await FakeVllmWorker.start({ unhealthy: true });
    fakes.push(gone);
    const { t: app, apiKey } = await gateway([gone.url, 'ws://127.0.0.1:1/v1/realtime']);
    const models = await app.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(models.json().data.find((m: any) => m.id === 'vendor-asr-streaming')).toMatchObject({
      capacity: { streams_in_use: 0, streams_max: 0 },
      languages: ['en', 'fr'],
    });
    const secret = await app.app.inject({
      method: 'POST',
      url: '/v1/realtime/client_secrets',
      payload: {},
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(secret.statusCode).toBe(503);
    expect(secret.json().error).toMatchObject({ code: 'capacity_exhausted', retry_after_ms: expect.any(Number) });
    const refusal = await SocketClient.refusal(
      `${app.baseUrl.replace('http', 'ws')}/v1/listen?encoding=linear16&sample_rate=24000`,
      {
        headers: { authorization: `Token ${apiKey}` },
      },
    );
    expect(refusal.status).toBe(503);
    // The voicechat model has its own engine, which is not affected.
    const live = await app.app.inject({
      method: 'POST',
      url: '/v1/live/client_secrets',
      payload: { session: { model: 'vendor-voicechat' } },
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(live.statusCode).toBe(200);
  });
});
