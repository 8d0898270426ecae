import { chunks, silence, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/** One utterance for the scripted engine: 1.2 s of speech (three words), then the VAD pause. */
const UTTERANCE = Buffer.concat([tone(1200), silence(800)]);
const LIVE_START = {
  type: 'session.start',
  session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } },
};

/** What a browser holds: a client secret, sent in the subprotocol the openai browser client uses. */
const burstOfUpdates = (c: SocketClient, count: number) => {
  for (let i = 0; i < count; i++) {
    const silence_duration_ms = i % 2 === 0 ? 500 : 600;
    c.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms } } },
      },
    });
  }
};

describe.each(databaseTargets())('hostile clients on %s', (target) => {
  describe('a burst of control messages', () => {
    let t: TestApp;
    let a: { apiKey: string };
    let b: { apiKey: string };
    let realtimeUrl: string;
    let rejections: unknown[];
    const onRejection = (reason: unknown) => rejections.push(reason);

    beforeAll(async () => {
      t = await startTestApp(target, { env: { CONCURRENT_SESSIONS_LIMIT: '50' } });
      a = await t.newProject('burster');
      b = await t.newProject('bystander');
      realtimeUrl = `${t.baseUrl.replace('http', 'ws')}/v1/realtime?intent=transcription`;
      rejections = [];
      process.on('unhandledRejection', onRejection);
    });
    afterAll(async () => {
      process.off('unhandledRejection', onRejection);
      await t?.close();
    });

    const secretOf = async (apiKey: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/realtime/client_secrets',
        payload: {},
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(res.statusCode).toBe(200);
      return res.json() as { value: string; session: { id: string } };
    };
    const sessionOf = async (apiKey: string, id: string) =>
      (
        await t.app.inject({ method: 'GET', url: `/v1/sessions/${id}`, headers: { authorization: `Bearer ${apiKey}` } })
      ).json();

    it.each(['client secret in the subprotocol', 'API key'])(
      '300 session.update at once over a %s end that session with a policy close; the process and another project go on',
      async (credential) => {
        const bystander = await SocketClient.open(realtimeUrl, { headers: { authorization: `Bearer ${b.apiKey}` } });
        await bystander.waitFor('session.created');

        let burster: SocketClient;
        let sessionId: string;
        if (credential === 'API key') {
          burster = await SocketClient.open(realtimeUrl, { headers: { authorization: `Bearer ${a.apiKey}` } });
          sessionId = (await burster.waitFor('session.created')).session.id;
        } else {
          const secret = await secretOf(a.apiKey);
          burster = await SocketClient.open(realtimeUrl, {
            protocols: ['realtime', `openai-insecure-api-key.${secret.value}`],
          });
          await burster.waitFor('session.created');
          sessionId = secret.session.id;
        }
        burstOfUpdates(burster, 300);

        const error = await burster.waitFor('error');
        expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'rate_limit_exceeded' });
        expect(await burster.waitClosed()).toBe(1008);
        await waitFor(async () => (await sessionOf(a.apiKey, sessionId)).status === 'closed');
        expect(await sessionOf(a.apiKey, sessionId)).toMatchObject({ close_reason: 'connection_lost' });
        expect(t.logs.join('')).toContain('control_rate_exceeded');

        // The process lives and the other project's session still transcribes.
        expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        for (const chunk of chunks(UTTERANCE, 100))
          bystander.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') });
        const completed = await bystander.waitFor('conversation.item.input_audio_transcription.completed');
        expect(completed.transcript).toBe('one two three');
        bystander.ws.close(1000);
        await bystander.waitClosed();
        expect(rejections).toEqual([]);
      },
    );

    it('a client that keeps within the limit gets every update acknowledged, in order', async () => {
      const c = await SocketClient.open(realtimeUrl, { headers: { authorization: `Bearer ${a.apiKey}` } });
      await c.waitFor('session.created');
      burstOfUpdates(c, 150);
      await c.waitFor(() => c.ofType('session.updated').length === 150, 30_000);
      expect(c.ofType('error')).toEqual([]);
      const last = c.ofType('session.updated').at(-1);
      expect(last.session.audio.input.turn_detection).toMatchObject({ silence_duration_ms: 600 });
      c.ws.close(1000);
      await c.waitClosed();
    });
  });

  describe('capacity shared between projects', () => {
    let t: TestApp;
    let liveUrl: string;

    beforeAll(async () => {
      t = await startTestApp(target, {
        env: { ENGINE_MAX_STREAMS: '8', PROJECT_STREAMS_PER_INSTANCE: '6', SESSION_IDLE_SECONDS: '2' },
      });
      liveUrl = `${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`;
    });
    afterAll(() => t?.close());

    it('one project holds at most its share; another gets a stream at once; silent sessions end idle', async () => {
      const hoarder = await t.newProject('hoarder');
      const waiter = await t.newProject('waiter');
      const headers = { authorization: `Bearer ${hoarder.apiKey}` };
      const held: SocketClient[] = [];
      for (let i = 0; i < 6; i++) {
        const c = await SocketClient.open(liveUrl, { headers });
        c.send(LIVE_START);
        await c.waitFor('session.started');
        held.push(c);
      }
      // The seventh socket of the same project is refused at the handshake, before any statement runs.
      const refused = await SocketClient.refusal(liveUrl, { headers });
      expect(refused).toMatchObject({ status: 503, body: { error: { code: 'capacity_exhausted' } } });

      // The other project is not: its browser gets a secret and a stream.
      const issued = await t.app.inject({
        method: 'POST',
        url: '/v1/live/client_secrets',
        payload: {},
        headers: { authorization: `Bearer ${waiter.apiKey}` },
      });
      expect(issued.statusCode).toBe(200);
      const browser = await SocketClient.open(`${liveUrl}?token=${encodeURIComponent(issued.json().value)}`);
      browser.send(LIVE_START);
      await browser.waitFor('session.started');
      browser.send({ type: 'session.close' });
      await browser.waitClosed();

      // The hoarder's sessions send no audio: each ends `expired` (idle_timeout) after 2 s of silence.
      const started = Date.now();
      const closed = await Promise.all(held.map((c) => c.waitFor('session.closed', 10_000)));
      expect(Date.now() - started).toBeLessThan(6000);
      for (const event of closed) expect(event).toMatchObject({ reason: 'expired', detail: 'idle_timeout' });
      const listed = await t.app.inject({ method: 'GET', url: '/v1/sessions', headers });
      expect(listed.json().data.map((s: { close_reason: string }) => s.close_reason)).toEqual(Array(6).fill('expired'));
      // Closed, they no longer count against the share.
      const again = await SocketClient.open(liveUrl, { headers });
      again.send(LIVE_START);
      await again.waitFor('session.started');
      again.send({ type: 'session.close' });
      await again.waitClosed();
    }, 30_000);
  });
});
