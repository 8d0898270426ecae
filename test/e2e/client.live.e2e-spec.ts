import WebSocket from 'ws';
import {
  connectWithClientSecret,
  createClientSecret,
  createRestClient,
  LiveSessionError,
  type LiveSessionEvent,
  type WebSocketConstructor,
} from '../../libs/client/src/index.js';
import { connectWithApiKey } from '../../libs/client/src/node.js';
import {
  concatAudio,
  fliteUtterances,
  silence,
  toSessionAudio,
} from '../../src/engines/embedded/testing/speech-fixtures';
import { chunks, sleep, tone } from '../support/audio';
import { createTestDatabase, databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const nodeWebSocket = WebSocket as unknown as WebSocketConstructor;

/** Streams pcm at real time in 160 ms pieces, as a microphone would. */
async function speak(send: (pcm: Buffer) => void, pcm: Buffer): Promise<void> {
  for (const piece of chunks(pcm, 160)) {
    send(piece);
    await sleep(160);
  }
}

describe('@continuum/client live sessions with the embedded engine', () => {
  let t: TestApp;
  let apiKey: string;
  let sentence: Buffer;

  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0], { env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: '2' } });
    ({ apiKey } = await t.newProject('client-live'));
    const [said] = await fliteUtterances('awb', ['turn off the lights in the kitchen']);
    const pcm = concatAudio([silence(300), toSessionAudio(said.clip)]);
    sentence = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  }, 120_000);
  afterAll(() => t?.close());

  it('transcribes flite speech over an API-key session, read with for await', async () => {
    const session = await connectWithApiKey({ baseUrl: t.baseUrl, apiKey, session: { model: 'vendor-asr-streaming' } });
    expect(session.resource).toMatchObject({ type: 'transcription', model: 'vendor-asr-streaming' });
    const speaking = speak((pcm) => session.sendAudio(pcm), sentence).then(() => session.commit());
    const seen: LiveSessionEvent['type'][] = [];
    let transcript = '';
    for await (const event of session) {
      seen.push(event.type);
      if (event.type === 'session.input_transcript.delta' && event.done) {
        transcript = event.transcript ?? '';
        break;
      }
    }
    await speaking;
    expect(transcript).toMatch(/lights/);
    expect(seen).toContain('session.turn.event');
    const end = await session.close();
    expect(end).toMatchObject({
      kind: 'session_closed',
      reason: 'close_requested',
      detail: 'client_requested',
      code: 1000,
    });
    if (end.kind !== 'session_closed') throw new Error('unreachable');
    expect(end.usage.frames).toBe(session.inputMs / 80);
  }, 60_000);

  it('opens a session with a client secret (the browser path) exactly once', async () => {
    const rest = createRestClient({ baseUrl: t.baseUrl, apiKey });
    const secret = await createClientSecret(rest, {
      session: { type: 'transcription', model: 'vendor-asr-streaming' },
    });
    const open = () =>
      connectWithClientSecret({
        liveUrl: secret.session.live_url,
        clientSecret: secret.value,
        session: { model: 'vendor-asr-streaming' },
        WebSocket: nodeWebSocket,
      });
    const session = await open();
    expect(session.resource?.id).toBe(secret.session.id);
    const partial = new Promise<string>((resolve) =>
      session.on('session.input_transcript.delta', (e) => resolve(e.delta)),
    );
    await speak((pcm) => session.sendAudio(pcm), sentence.subarray(0, 24_000 * 2 * 2));
    expect((await partial).trim().length).toBeGreaterThan(0);

    // Used secrets are refused before the upgrade; a browser learns no more than "not opened".
    const again = await open().catch((e: unknown) => e);
    expect(again).toBeInstanceOf(LiveSessionError);
    expect((again as LiveSessionError).end).toMatchObject({ kind: 'not_opened', status: null });
    await session.close();
    await expect(
      connectWithClientSecret({
        liveUrl: secret.session.live_url,
        clientSecret: apiKey,
        session: { model: 'vendor-asr-streaming' },
        WebSocket: nodeWebSocket,
      }),
    ).rejects.toThrow(/never an API key/);
  }, 60_000);

  it('reports a refused handshake with its HTTP status and code in Node', async () => {
    const refused = await connectWithApiKey({
      baseUrl: t.baseUrl,
      apiKey: 'wk_unknown',
      session: { model: 'vendor-voicechat' },
    }).catch((e: unknown) => e);
    expect((refused as LiveSessionError).end).toMatchObject({
      kind: 'not_opened',
      status: 401,
      error: { code: 'invalid_api_key' },
    });
  });

  it('refuses a session.start the server will not serve, as an error event', async () => {
    const refused = await connectWithApiKey({
      baseUrl: t.baseUrl,
      apiKey,
      session: { model: 'vendor-voicechat', audio: { output: { voice: 'someone-else' } } },
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LiveSessionError);
    expect((refused as LiveSessionError).error).toMatchObject({
      type: 'invalid_request_error',
      param: expect.any(String),
    });
  });

  it('ends as close_requested / session_deleted when the session is deleted over REST', async () => {
    const session = await connectWithApiKey({ baseUrl: t.baseUrl, apiKey, session: { model: 'vendor-asr-streaming' } });
    session.sendAudio(tone(400));
    const rest = createRestClient({ baseUrl: t.baseUrl, apiKey });
    await rest.DELETE('/v1/sessions/{session_id}', { params: { path: { session_id: session.resource!.id } } });
    expect(await session.closed).toMatchObject({
      kind: 'session_closed',
      reason: 'close_requested',
      detail: 'session_deleted',
    });
  }, 30_000);
});

describe('@continuum/client close reasons from the server', () => {
  it('ends as expired at the time limit', async () => {
    const t = await startTestApp(databaseTargets()[0], { env: { MAX_SESSION_SECONDS: '1' } });
    try {
      const { apiKey } = await t.newProject();
      const session = await connectWithApiKey({
        baseUrl: t.baseUrl,
        apiKey,
        session: { model: 'vendor-voicechat' },
        inputEncoding: 'binary', // raw pcm16 frames, the extension: metered like appends
      });
      session.sendAudio(tone(240));
      expect(await session.closed).toMatchObject({
        kind: 'session_closed',
        reason: 'expired',
        detail: 'max_duration_reached',
        usage: { frames: 3 },
      });
    } finally {
      await t.close();
    }
  }, 30_000);

  it('ends as connection_lost / server_shutdown when the service stops, and as connection_lost when the socket drops', async () => {
    const target = databaseTargets()[0];
    const db = await createTestDatabase(target);
    try {
      const t = await startTestApp(target, { databaseUrl: db.url, env: { SHUTDOWN_GRACE_SECONDS: '0' } });
      const { apiKey } = await t.newProject();
      const session = await connectWithApiKey({ baseUrl: t.baseUrl, apiKey, session: { model: 'vendor-voicechat' } });
      const dropped = await connectWithApiKey({ baseUrl: t.baseUrl, apiKey, session: { model: 'vendor-voicechat' } });
      // A socket cut without a close handshake (a lost network) ends without session.closed.
      const raw = (dropped as unknown as { socket: WebSocket }).socket;
      raw.terminate();
      expect(await dropped.closed).toMatchObject({ kind: 'connection_lost', code: 1006 });
      await t.app.close();
      expect(await session.closed).toMatchObject({
        kind: 'session_closed',
        reason: 'connection_lost',
        detail: 'server_shutdown',
        code: 1001,
      });
    } finally {
      await db.drop();
    }
  }, 60_000);
});
