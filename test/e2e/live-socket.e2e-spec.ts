import fc from 'fast-check';
import { silence, sleep, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const START = { type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } };

describe.each(databaseTargets())('live socket protocol on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  let wsUrl: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { MAX_SESSION_SECONDS: '3', CONCURRENT_SESSIONS_LIMIT: '50' } });
    ({ apiKey } = await t.newProject());
    wsUrl = `${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`;
  });
  afterAll(() => t?.close());

  const open = () => SocketClient.open(wsUrl, { headers: { authorization: `Bearer ${apiKey}` } });
  const rest = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${apiKey}` } });
  const newSecret = async (session: object = {}, seconds = 60) => {
    const res = await rest('POST', '/v1/live/client_secrets', { expires_after: { seconds }, session });
    expect(res.statusCode).toBe(200);
    return res.json() as { value: string; session: { id: string; live_url: string } };
  };
  const started = async () => {
    const c = await open();
    c.send(START);
    return { c, start: await c.waitFor('session.started') };
  };

  describe('handshake', () => {
    it('opens with a client secret in ?token= under the secret configuration', async () => {
      const secret = await newSecret({ type: 'transcription' });
      expect(secret.session.live_url).toMatch(/\/v1\/live\/sessions$/);
      const c = await SocketClient.open(`${wsUrl}?token=${encodeURIComponent(secret.value)}`);
      c.send({ type: 'session.start', session: { model: 'vendor-asr-streaming' } });
      const s = await c.waitFor('session.started');
      expect(s.session).toMatchObject({ id: secret.session.id, model: 'vendor-asr-streaming' });
      c.send({ type: 'session.close' });
      await c.waitFor('session.closed');
    });

    it('refuses a session.start that asks for another configuration than the secret', async () => {
      const secret = await newSecret({ type: 'transcription' });
      const c = await SocketClient.open(wsUrl, { headers: { authorization: `Bearer ${secret.value}` } });
      c.send({ type: 'session.start', event_id: 'e1', session: { model: 'vendor-voicechat' } });
      const error = await c.waitFor('error');
      expect(error.error).toMatchObject({ code: 'session_config_locked', client_event_id: 'e1' });
      c.ws.terminate();
    });

    it('refuses a second use of a secret with 409 client_secret_used', async () => {
      const secret = await newSecret();
      const first = await SocketClient.open(`${wsUrl}?token=${secret.value}`);
      const refusal = await SocketClient.refusal(`${wsUrl}?token=${secret.value}`);
      expect(refusal.status).toBe(409);
      expect(refusal.body.error).toMatchObject({
        code: 'client_secret_used',
        request_id: refusal.headers['x-request-id'],
      });
      first.ws.terminate();
    });

    it('refuses an expired secret with 401 client_secret_expired', async () => {
      const secret = await newSecret({}, 1);
      await sleep(1500);
      const refusal = await SocketClient.refusal(`${wsUrl}?token=${secret.value}`);
      expect(refusal).toMatchObject({ status: 401, body: { error: { code: 'client_secret_expired' } } });
    });

    it.each([
      ['no credential', {}, '', 401, 'missing_api_key'],
      ['an unknown secret', {}, '?token=ek_nope', 401, 'invalid_client_secret'],
      ['an API key in the URL', {}, '?token=KEY', 401, 'api_key_in_query'],
      ['an unknown key', { authorization: 'Bearer wk_nope' }, '', 401, 'invalid_api_key'],
    ])('refuses %s before the upgrade', async (_n, headers, query, status, code) => {
      const refusal = await SocketClient.refusal(`${wsUrl}${query.replace('KEY', apiKey)}`, {
        headers: headers as Record<string, string>,
      });
      expect(refusal.status).toBe(status);
      expect(refusal.headers['content-type']).toContain('application/json');
      expect(refusal.body.error.code).toBe(code);
    });
  });

  describe('events', () => {
    it('acknowledges with client_event_id only when the client sent event_id', async () => {
      const { c } = await started();
      c.send({ type: 'session.input_audio.mute', event_id: 'm1' });
      c.send({ type: 'session.input_audio.unmute' });
      const muted = await c.waitFor('session.input_audio.muted');
      const unmuted = await c.waitFor('session.input_audio.unmuted');
      expect(muted.client_event_id).toBe('m1');
      expect(unmuted).not.toHaveProperty('client_event_id');
      expect(muted.event_id).not.toBe(unmuted.event_id);
      c.ws.terminate();
    });

    it('warns about audio while muted and still meters it', async () => {
      const { c } = await started();
      c.send({ type: 'session.input_audio.mute' });
      await c.waitFor('session.input_audio.muted');
      c.send({ type: 'session.input_audio.append', audio: tone(800).toString('base64') });
      const warning = await c.waitFor('session.input_audio.warning');
      expect(warning.code ?? warning.warning?.code).toBe('audio_while_muted');
      c.send({ type: 'session.close' });
      expect((await c.waitFor('session.closed')).usage).toMatchObject({ frames: 10 });
    });

    it.each([
      'session.commentary.append',
      'session.thinking.append',
      'session.instructions.append',
      'response.create',
      'response.item.create',
    ])('refuses %s with unsupported_event, param type, and stays open', async (type) => {
      const { c } = await started();
      c.send({ type, event_id: 'x1' });
      const error = await c.waitFor('error');
      expect(error).toMatchObject({ client_event_id: 'x1', error: { code: 'unsupported_event', param: 'type' } });
      c.send({ type: 'session.close' });
      await c.waitFor('session.closed');
    });

    it('refuses a voice other than aria with invalid_voice', async () => {
      const c = await open();
      c.send({ type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'marin' } } } });
      const error = await c.waitFor('error');
      expect(error.error).toMatchObject({ code: 'invalid_voice', param: 'session.audio.output.voice' });
      c.ws.terminate();
    });

    it('answers unknown types, bad JSON, events before start, bad audio and oversized messages with errors', async () => {
      const c = await open();
      c.send({ type: 'session.input_audio.append', audio: 'AAAA' });
      c.sendRaw('{not json');
      c.send({ type: 'no.such.event' });
      expect((await c.waitFor((e) => e.error?.code === 'session_not_started')).type).toBe('error');
      await c.waitFor((e) => e.error?.code === 'invalid_json');
      await c.waitFor((e) => e.error?.code === 'unknown_event');
      c.send(START);
      await c.waitFor('session.started');
      c.send({ type: 'session.input_audio.append', audio: '!!!notbase64' });
      c.send({ type: 'session.input_audio.append', audio: Buffer.from([1, 2, 3]).toString('base64') });
      c.sendRaw('x'.repeat(1024 * 1024 + 10));
      await c.waitFor((e) => e.error?.code === 'message_too_large');
      expect(c.events.filter((e) => e.error?.code === 'invalid_audio')).toHaveLength(2);
      c.send({ type: 'session.close' });
      await c.waitFor('session.closed');
      expect(await c.waitClosed()).toBe(1000);
    });

    it('sends output audio as binary frames when audio.output.encoding is binary', async () => {
      const c = await open();
      c.send({
        type: 'session.start',
        session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria', encoding: 'binary' } } },
      });
      await c.waitFor('session.started');
      c.send({
        type: 'session.input_audio.append',
        audio: Buffer.concat([tone(1200), silence(900)]).toString('base64'),
      });
      await c.waitFor('session.output_transcript.delta', 15_000);
      await sleep(500);
      expect(c.binary.length).toBeGreaterThan(0);
      expect(c.binary[0].length % 2).toBe(0);
      expect(c.ofType('session.output_audio.delta')).toHaveLength(0);
      c.ws.terminate();
    });
  });

  describe('lifecycle', () => {
    it('ends after the maximum duration with reason expired, then close code 1000', async () => {
      const { c, start } = await started();
      const closed = await c.waitFor('session.closed', 8000);
      expect(closed.reason).toBe('expired');
      expect(await c.waitClosed()).toBe(1000);
      expect(c.ofType('session.closed')).toHaveLength(1);
      const session = (await rest('GET', `/v1/sessions/${start.session.id}`)).json();
      expect(session).toMatchObject({ status: 'closed', close_reason: 'expired' });
    });

    it('records a dropped socket as connection_lost', async () => {
      const { c, start } = await started();
      c.send({ type: 'session.input_audio.append', audio: tone(400).toString('base64') });
      await sleep(200);
      c.ws.terminate();
      await waitFor(async () => (await rest('GET', `/v1/sessions/${start.session.id}`)).json().status === 'closed');
      const session = (await rest('GET', `/v1/sessions/${start.session.id}`)).json();
      expect(session).toMatchObject({ close_reason: 'connection_lost', usage: { frames: 5 } });
    });

    it('ends a live socket on DELETE /v1/sessions/{id} with close_requested, then hides the session', async () => {
      const { c, start } = await started();
      const res = await rest('DELETE', `/v1/sessions/${start.session.id}`);
      expect(res.statusCode).toBe(204);
      const closed = await c.waitFor('session.closed');
      expect(closed.reason).toBe('close_requested');
      expect(await c.waitClosed()).toBe(1000);
      expect((await rest('GET', `/v1/sessions/${start.session.id}`)).statusCode).toBe(404);
      const row: { status: string }[] = await t.dataSource.query('SELECT status FROM sessions WHERE id = $1', [
        start.session.id,
      ]);
      expect(row[0].status).toBe('closed');
    });

    it('never crashes on fuzzed client events and always still closes cleanly', async () => {
      const event = fc.oneof(
        fc.record({
          type: fc.constantFrom(
            'session.update',
            'session.input_audio.append',
            'session.input_audio.mute',
            'session.start',
            'nope',
            '',
          ),
          event_id: fc.option(fc.string(), { nil: undefined }),
          audio: fc.option(fc.string(), { nil: undefined }),
          session: fc.option(fc.object(), { nil: undefined }),
        }),
        fc.jsonValue(),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(event, { maxLength: 15 }), async (frames) => {
          const { c } = await started();
          for (const f of frames) c.sendRaw(JSON.stringify(f));
          c.send({ type: 'session.close' });
          await c.waitFor('session.closed');
          return (await c.waitClosed()) === 1000;
        }),
        { numRuns: 15 },
      );
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    }, 60_000);
  });
});
