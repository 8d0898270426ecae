import { chunks, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * How a client's end of the socket is recorded, on every dialect: a close handshake is the client's
 * own end (`close_requested`), whatever code it carries (1000 from the SDKs, none at all from a
 * browser's `close()` or LiveKit's OpenAI plugin, 1001 from a page going away); a socket gone
 * without one is `connection_lost`.
 */
const SPEECH = tone(400);

interface Dialect {
  readonly name: string;
  readonly secretPath: string;
  readonly socket: (token: string) => string;
  /** Sends some audio and waits until the session is running (so its end is a started session's). */
  readonly warmUp: (c: SocketClient) => Promise<void>;
}

const base64Appends = (type: string, c: SocketClient) => {
  for (const chunk of chunks(SPEECH, 80)) c.send({ type, audio: chunk.toString('base64') });
};
const binaryAudio = (c: SocketClient) => {
  for (const chunk of chunks(SPEECH, 80)) c.sendRaw(chunk, true);
};

const DIALECTS: readonly Dialect[] = [
  {
    name: 'live',
    secretPath: '/v1/live/client_secrets',
    socket: (token) => `/v1/live/sessions?token=${token}`,
    warmUp: async (c) => {
      c.send({ type: 'session.start', session: {} });
      await c.waitFor('session.started');
      base64Appends('session.input_audio.append', c);
    },
  },
  {
    name: 'realtime',
    secretPath: '/v1/realtime/client_secrets',
    socket: (token) => `/v1/realtime?intent=transcription&token=${token}`,
    warmUp: async (c) => {
      await c.waitFor('session.created');
      base64Appends('input_audio_buffer.append', c);
    },
  },
  {
    name: 'listen',
    secretPath: '/v1/realtime/client_secrets',
    socket: (token) => `/v1/listen?encoding=linear16&sample_rate=24000&token=${token}`,
    warmUp: async (c) => binaryAudio(c),
  },
  {
    name: 'flux',
    secretPath: '/v1/realtime/client_secrets',
    socket: (token) => `/v2/listen?model=flux-general-en&encoding=linear16&sample_rate=24000&token=${token}`,
    warmUp: async (c) => binaryAudio(c),
  },
];

describe.each(databaseTargets())('a client ending its socket on %s', (target) => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { CONCURRENT_SESSIONS_LIMIT: '50' } });
    ({ apiKey } = await t.newProject());
  });
  afterAll(() => t?.close());

  const closedSession = async (id: string) => {
    for (let i = 0; i < 200; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/sessions/${id}`,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const session = res.json();
      if (session.status === 'closed') return session;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`session ${id} did not close`);
  };

  /** A running session on `dialect`, and its id. */
  const running = async (dialect: Dialect) => {
    const res = await t.app.inject({
      method: 'POST',
      url: dialect.secretPath,
      payload: {},
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.statusCode).toBe(200);
    const secret = res.json() as { value: string; session: { id: string } };
    const url = `${t.baseUrl.replace('http', 'ws')}${dialect.socket(encodeURIComponent(secret.value))}`;
    const c = await SocketClient.open(url);
    await dialect.warmUp(c);
    return { c, id: secret.session.id };
  };

  describe.each(DIALECTS)('on the $name socket', (dialect) => {
    it.each([
      ['without a code (1005: a browser close(), LiveKit)', (c: SocketClient) => c.ws.close()],
      ['with 1000 (the SDKs)', (c: SocketClient) => c.ws.close(1000)],
      ['with 1001 (a page going away)', (c: SocketClient) => c.ws.close(1001)],
    ])('records a close handshake %s as close_requested', async (_how, close) => {
      const { c, id } = await running(dialect);
      close(c);
      await c.waitClosed();
      expect(await closedSession(id)).toMatchObject({ close_reason: 'close_requested' });
    });

    it('records a socket gone without a close handshake as connection_lost', async () => {
      const { c, id } = await running(dialect);
      c.ws.terminate();
      expect(await closedSession(id)).toMatchObject({ close_reason: 'connection_lost' });
    });
  });
});
