/**
 * A call is owned by the replica that holds its media, and reached from the others: two replicas of the
 * built service on one PostgreSQL, a Twilio call (the scripted fake Twilio) held by A, its sideband
 * opened on B with the openai SDK's OpenAIRealtimeWS (`callID`) and relayed to A (INSTANCE_URL), and
 * its hang-up POSTed to B. The conversation is a cascade whose chat and speech upstreams are fake
 * servers in this process, so what B's sideband asks is seen arriving at A's session.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup } from 'node-datachannel';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { Client } from 'pg';
import { serviceBuilt, ServiceProcess } from '../../bench/support/service-process';
import { chatBody, startFakeChatServer, type ChatPlan } from '../../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../../src/engines/cascade/testing/fake-speech-server';
import type { RecordedRequest, RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import type { ConversationEvent } from '../support/conversation-app';
import { FakeTwilio } from '../support/fake-twilio';
import { freePort } from '../support/local-daemon';
import { SocketClient } from '../support/socket-client';
import { createTestDatabase, databaseTargets, type TestDatabase } from '../support/test-database';
import { fetchTrusting, pemPair } from '../support/tls-and-words';
import { waitFor } from '../support/wait-for';
import { connectedPeer, type ClientPeer } from '../support/webrtc-peer';

const runs = databaseTargets().includes('postgres') && serviceBuilt();
const describeReplicas = runs ? describe : describe.skip;

const KEY = `wk_${'Ca11Own3r'.repeat(5)}`;
const SILENCE = (ms: number) => Buffer.alloc(ms * 8, 0xff);

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

describeReplicas('a call held by one replica, steered and hung up from another', () => {
  let db: TestDatabase;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let pg: Client;
  let chat: RecordingServer;
  let speech: RecordingServer;
  let ca: Buffer;
  let dir: string;
  let chatPlan: (request: RecordedRequest) => ChatPlan = () => ({ kind: 'reply', pieces: ['Hello.'] });
  const twilios: FakeTwilio[] = [];
  const peers: ClientPeer[] = [];

  beforeAll(async () => {
    chat = await startFakeChatServer((request) => chatPlan(request));
    speech = await startFakeSpeechServer(() => ({ msPerChar: 10, chunkMs: 100, chunkEveryMs: 5 }));
    dir = mkdtempSync(join(tmpdir(), 'continuum-calls-'));
    const { cert, key } = pemPair(dir);
    ca = readFileSync(cert);
    db = await createTestDatabase('postgres');
    // The listener is the scripted engine (no model to load): the test drives responses with response.create.
    const engines = {
      engines: {
        listen: { kind: 'scripted', maxStreams: 4 },
        voicechat: {
          kind: 'cascade',
          listener: 'listen',
          languages: ['en'],
          chat: { url: chat.baseUrl, model: 'llama-3.2-3b-instruct', maxTokens: 80, timeoutMs: 5000 },
          speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
        },
      },
      models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
    };
    const [portA, portB] = [await freePort(), await freePort()];
    const udp = { [portA]: await freeUdpPort(), [portB]: await freeUdpPort() };
    const env = (port: number) => ({
      DATABASE_URL: db.url,
      ENGINES_JSON: JSON.stringify(engines),
      STARTING_API_KEY: KEY,
      TLS_CERT_FILE: cert,
      TLS_KEY_FILE: key,
      PORT: String(port),
      // Each replica's own address, as the downward API gives a pod its IP.
      INSTANCE_URL: `https://127.0.0.1:${port}`,
      WEBRTC_UDP_PORT: String(udp[port]),
      LOG_LEVEL: 'info',
      DATABASE_POOL_SIZE: '4',
    });
    [a, b] = await Promise.all([ServiceProcess.start('A', env(portA)), ServiceProcess.start('B', env(portB))]);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  }, 120_000);

  afterAll(async () => {
    for (const twilio of twilios) twilio.close();
    for (const peer of peers) peer.close();
    await Promise.all([a, b].map((p) => p?.stop()));
    await pg?.end();
    await db?.drop();
    await chat?.close();
    await speech?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    cleanup(); // libdatachannel's threads, which would keep the worker alive
  }, 60_000);

  const rest = async (on: ServiceProcess, path: string, body?: object) => {
    const response = await fetchTrusting(ca)(`${on.baseUrl}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, any> };
  };
  const refusal = (on: ServiceProcess, callId: string, headers: Record<string, string> = {}) =>
    SocketClient.refusal(`${on.wsUrl}/v1/realtime?call_id=${callId}`, {
      ca,
      headers: { authorization: `Bearer ${KEY}`, ...headers },
    });

  /** A Twilio call whose stream reached A: the app's secret, the stream started, its call id. */
  async function callOnA(): Promise<{ twilio: FakeTwilio; sessionId: string; callId: string }> {
    const secret = (await rest(a, '/v1/realtime/client_secrets', { session: { type: 'realtime' } })).body;
    const twilio = await FakeTwilio.connect(`${a.wsUrl}/v1/telephony/twilio`, { ca });
    twilios.push(twilio);
    twilio.start({ token: secret.value });
    await twilio.speak(SILENCE(200));
    let callId: string | null = null;
    await waitFor(async () => (callId = (await rest(b, `/v1/sessions/${secret.session.id}`)).body.call_id) !== null);
    return { twilio, sessionId: secret.session.id, callId: callId! };
  }

  /** The app's server joins the call on B as OpenAI's SDK does (`callID`), every event recorded. */
  async function sidebandOnB(callID: string) {
    const client = new OpenAI({ apiKey: KEY, baseURL: `${b.baseUrl}/v1`, fetch: fetchTrusting(ca) });
    const rt = new OpenAIRealtimeWS({ callID, options: { ca } }, client);
    const events: ConversationEvent[] = [];
    rt.on('event', (event) => events.push(event as ConversationEvent));
    rt.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => rt.socket.once('open', resolve).once('error', reject));
    let closed: { code: number; reason: string } | null = null;
    rt.socket.on('close', (code, reason) => (closed = { code, reason: reason.toString() }));
    const next = async (type: string, from = 0): Promise<ConversationEvent> => {
      let found: ConversationEvent | undefined;
      await waitFor(async () => (found = events.slice(from).find((e) => e.type === type)) !== undefined, 15_000);
      return found!;
    };
    return { rt, events, next, closed: () => closed };
  }

  /** A WebRTC call answered by A, its client peer connected. */
  async function webrtcCallOnA(): Promise<{ p: ClientPeer; callId: string }> {
    const openai = new OpenAI({ apiKey: KEY, baseURL: `${a.baseUrl}/v1`, fetch: fetchTrusting(ca) });
    return connectedPeer(async (sdp) => {
      const res = await openai.realtime.calls.create({ sdp, session: { type: 'realtime', model: 'gpt-realtime' } });
      return { answer: await res.text(), callId: res.headers.get('location')!.split('/').pop()! };
    }, peers);
  }

  it('the sideband opened on B steers the call A holds; hang-up POSTed to B ends it on A', async () => {
    const { twilio, sessionId, callId } = await callOnA();
    const [row] = (await pg.query('SELECT instance_id, call_owner_url FROM sessions WHERE id = $1', [sessionId])).rows;
    expect(row.call_owner_url).toBe(a.baseUrl);

    const side = await sidebandOnB(callId);
    side.rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'You route calls.' } });
    const updated = await side.next('session.updated');
    expect(updated.session).toMatchObject({ id: sessionId, instructions: 'You route calls.' });

    // response.create crosses to A: its cascade asks the chat model with the instructions B set.
    chatPlan = () => ({ kind: 'reply', pieces: ['Connecting you to the sales team now.'] });
    const asked = chat.requests.length;
    const heardBefore = twilio.playedMs;
    const from = side.events.length;
    side.rt.send({ type: 'response.create' });
    const done = (await side.next('response.done', from)).response;
    expect(done.status).toBe('completed');
    expect(chat.requests.length).toBeGreaterThan(asked);
    expect(chatBody(chat.requests.at(-1)!).messages[0]).toEqual({ role: 'system', content: 'You route calls.' });
    // The caller on A hears the answer; the sideband on B reads its transcript, never its audio.
    await waitFor(async () => twilio.playedMs - heardBefore > 200);
    expect(side.events.some((e) => e.type === 'response.output_audio_transcript.done')).toBe(true);
    expect(side.events.filter((e) => e.type === 'response.output_audio.delta')).toEqual([]);
    expect(side.events.filter((e) => e.type === 'error')).toEqual([]);
    expect(b.output.join('')).toMatch(new RegExp(`sideband of call ${callId} relayed`));
    expect(a.output.join('')).toMatch(new RegExp(`sideband joined call ${callId}`));

    // A relayed sideband is not relayed again (no loops through a wrong INSTANCE_URL).
    expect(await refusal(b, callId, { 'x-continuum-relayed-by': 'elsewhere' })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', param: 'call_id' } },
    });

    const hungUp = await rest(b, `/v1/realtime/calls/${callId}/hangup`, {});
    expect(hungUp.status).toBe(204);
    await waitFor(async () => twilio.closed !== null && side.closed() !== null, 5000);
    expect(side.closed()).toMatchObject({ code: 1000 });
    await waitFor(async () => (await rest(b, `/v1/sessions/${sessionId}`)).body.status === 'closed');
    expect((await rest(a, `/v1/sessions/${sessionId}`)).body).toMatchObject({ close_reason: 'close_requested' });
    expect(await refusal(b, callId)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  }, 60_000);

  it('an owner with no address keeps the 404; an owner that does not answer is 503 call_unreachable', async () => {
    const { twilio, sessionId, callId } = await callOnA();
    await pg.query('UPDATE sessions SET call_owner_url = NULL WHERE id = $1', [sessionId]);
    const unaddressed = await refusal(b, callId);
    expect(unaddressed).toMatchObject({ status: 404, body: { error: { code: 'not_found', param: 'call_id' } } });
    expect(unaddressed.body.error.message).toMatch(/INSTANCE_URL/);

    await pg.query('UPDATE sessions SET call_owner_url = $2 WHERE id = $1', [
      sessionId,
      `https://127.0.0.1:${await freePort()}`,
    ]);
    const unanswered = await refusal(b, callId);
    expect(unanswered).toMatchObject({ status: 503, body: { error: { code: 'call_unreachable' } } });
    expect(unanswered.body.error.retry_after_ms).toBeGreaterThan(0);

    // The call never noticed; the owner's own refusal is answered as it was (the session id of the call, on A).
    expect(twilio.closed).toBeNull();
    twilio.stop();
    await waitFor(async () => twilio.closed !== null);
  }, 30_000);

  it("a WebRTC call held by A: B's sideband changes what the caller's channel sees; hang-up POSTed to B closes the peer", async () => {
    const { p, callId } = await webrtcCallOnA();
    await p.next('session.created');
    await waitFor(async () => (await rest(b, `/v1/sessions/${callId}`)).body.call_id === callId);

    const side = await sidebandOnB(callId);
    side.rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Seat the guests.' } });
    expect((await side.next('session.updated')).session.instructions).toBe('Seat the guests.');
    expect((await p.next('session.updated')).session.instructions).toBe('Seat the guests.');

    expect((await rest(b, `/v1/realtime/calls/${callId}/hangup`, {})).status).toBe(204);
    await waitFor(async () => !p.channel.isOpen() && side.closed() !== null, 10_000);
    await waitFor(async () => (await rest(b, `/v1/sessions/${callId}`)).body.status === 'closed');
    expect((await rest(b, `/v1/sessions/${callId}`)).body).toMatchObject({
      close_reason: 'close_requested',
      transport: 'webrtc',
    });
  }, 30_000);
});
