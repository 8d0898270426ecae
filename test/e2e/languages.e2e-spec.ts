/**
 * Honest languages: each model shows the languages its engine recognises, and a session asking
 * for another one is refused (400 invalid_parameter) instead of being silently transcribed as English.
 */
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

describe.each(databaseTargets())('session languages on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    t = await startTestApp(target);
    ({ apiKey } = await t.newProject());
  });
  afterAll(() => t?.close());

  const post = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${apiKey}` } });

  it('lists the languages of every model', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.json().data.map((m: any) => [m.id, m.languages])).toEqual([
      ['vendor-voicechat', ['en']],
      ['vendor-asr-streaming', ['en']],
    ]);
  });

  it.each([
    [
      '/v1/realtime/client_secrets',
      { session: { type: 'transcription', audio: { input: { transcription: { language: 'de' } } } } },
    ],
    [
      '/v1/live/client_secrets',
      { session: { model: 'vendor-voicechat', audio: { input: { transcription: { language: 'de' } } } } },
    ],
  ])('refuses a secret for a language the model does not recognise (%s)', async (url, body) => {
    const res = await post(url, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'invalid_parameter',
      param: 'session.audio.input.transcription.language',
      message: expect.stringContaining('"de"'),
    });
    const ok = await post(url, JSON.parse(JSON.stringify(body).replace('"de"', '"en"')));
    expect(ok.statusCode).toBe(200);
  });

  it('refuses a Deepgram socket asking for another language at the handshake', async () => {
    const base = `${t.baseUrl.replace('http', 'ws')}/v1/listen?encoding=linear16&sample_rate=24000`;
    const headers = { authorization: `Token ${apiKey}` };
    const refusal = await SocketClient.refusal(`${base}&language=de`, { headers });
    expect(refusal.status).toBe(400);
    const accepted = await SocketClient.open(`${base}&language=en-US`, { headers });
    accepted.ws.close(1000);
  });

  it('refuses a realtime session.update to another language, and keeps the session', async () => {
    const c = await SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/realtime?intent=transcription`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    await c.waitFor('session.created');
    const update = (language: string) => ({
      type: 'session.update',
      event_id: `evt_${language}`,
      session: { type: 'transcription', audio: { input: { transcription: { language } } } },
    });
    c.send(update('de'));
    const error = await c.waitFor('error');
    expect(error.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'session.audio.input.transcription.language',
      event_id: 'evt_de',
    });
    c.send(update('en'));
    const updated = await c.waitFor('session.updated');
    expect(updated.session.audio.input.transcription.language).toBe('en');
    c.ws.close(1000);
  });
});
