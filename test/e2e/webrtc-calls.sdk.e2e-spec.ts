/**
 * WebRTC calls from Node: the `openai` SDK's realtime.calls.create (multipart, API key) and the Agents
 * SDK's raw offer (a client secret), answered by the service; the client peer (node-datachannel, as a
 * browser is one) then talks over the `oai-events` channel and RTP audio with the cascade on test upstreams.
 */
import { cleanup } from 'node-datachannel';
import OpenAI from 'openai';
import { fliteUtterances, toSessionAudio } from '../../src/engines/embedded/testing/speech-fixtures';
import { randomCallPort, startConversationApp, type ConversationApp } from '../support/conversation-app';
import { fetchTrusting } from '../support/tls-and-words';
import { waitFor } from '../support/wait-for';
import { clientPeer, connectedPeer, heardLevel, type ClientPeer } from '../support/webrtc-peer';

const pcmOf = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);

describe('WebRTC calls (POST /v1/realtime/calls)', () => {
  let app: ConversationApp;
  let post: (path: string, init: RequestInit) => Promise<Response>;
  const peers: ClientPeer[] = [];
  const peer = async (options?: Parameters<typeof clientPeer>[0]) => {
    const p = await clientPeer(options);
    peers.push(p);
    return p;
  };

  beforeAll(async () => {
    app = await startConversationApp({ WEBRTC_UDP_PORT: randomCallPort() });
    const fetch = fetchTrusting(app.ca);
    post = (path, init) => fetch(`${app.t.baseUrl}${path}`, { method: 'POST', ...init });
  }, 120_000);
  afterEach(() => {
    for (const p of peers.splice(0)) p.close();
  });
  afterAll(async () => {
    await app?.close();
    cleanup(); // libdatachannel's threads, which would keep the worker alive
  });

  async function session(id: string): Promise<Record<string, unknown>> {
    const res = await fetchTrusting(app.ca)(`${app.t.baseUrl}/v1/sessions/${id}`, {
      headers: { Authorization: `Bearer ${app.apiKey}` },
    });
    return (await res.json()) as Record<string, unknown>;
  }

  async function secret(session: Record<string, unknown> = {}): Promise<string> {
    const res = await post('/v1/realtime/client_secrets', {
      headers: { Authorization: `Bearer ${app.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ session: { type: 'realtime', model: 'gpt-realtime', ...session } }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { value: string }).value;
  }

  it('the openai SDK calls.create: 201 with the answer and an rtc_ Location; a spoken turn is answered with audible audio over RTP', async () => {
    app.msPerChar = 20;
    app.chatPlan = () => ({ kind: 'reply', pieces: ['Hello', ' from the call.'] });
    const openai = new OpenAI({ apiKey: app.apiKey, baseURL: `${app.t.baseUrl}/v1`, fetch: fetchTrusting(app.ca) });
    const { p, res, answer } = await connectedPeer(async (sdp) => {
      const res = await openai.realtime.calls.create({
        sdp,
        session: { type: 'realtime', model: 'gpt-realtime', instructions: 'Be brief.' },
      });
      return { res, answer: await res.text() };
    }, peers);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/sdp/);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/v1\/realtime\/calls\/rtc_[0-9A-Za-z]+$/);
    expect(answer).toMatch(/^v=0\r\n/);
    expect(answer).toMatch(/a=fingerprint:sha-256 /);

    const created = await p.next('session.created');
    expect(created.session).toMatchObject({ type: 'realtime', instructions: 'Be brief.' });
    p.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Be very brief.' } });
    expect((await p.next('session.updated')).session.instructions).toBe('Be very brief.');

    const [utterance] = await fliteUtterances('awb', ['what time is it in the kitchen']);
    await p.speak(pcmOf(toSessionAudio(utterance.clip)), 1500);
    await p.next('input_audio_buffer.speech_started', 0, 20_000);
    await p.next('input_audio_buffer.speech_stopped', 0, 20_000);
    const started = await p.next('output_audio_buffer.started', 0, 20_000);
    const done = await p.next('response.done', 0, 30_000);
    expect(done.response).toMatchObject({
      status: 'completed',
      output: [{ content: [{ transcript: 'Hello from the call.' }] }],
    });
    expect(started.response_id).toBe(done.response.id);
    const stopped = await p.next('output_audio_buffer.stopped', 0, 10_000);
    expect(stopped.response_id).toBe(done.response.id);
    // No audio in events over WebRTC: the answer came as RTP, loud enough to hear.
    expect(p.events.some((e) => e.type === 'response.output_audio.delta')).toBe(false);
    const answerAudio = p.heard.filter((f) => f.at >= 0);
    expect(answerAudio.length).toBeGreaterThan(10);
    expect(heardLevel(answerAudio)).toBeGreaterThan(500);
    expect(p.events.filter((e) => e.type === 'error')).toEqual([]);

    // The call is a session: listed by its call id with its transport.
    const callId = location.split('/').pop()!;
    const row = await fetchTrusting(app.ca)(`${app.t.baseUrl}/v1/sessions/${callId}`, {
      headers: { Authorization: `Bearer ${app.apiKey}` },
    });
    expect(row.status).toBe(200);
    expect(await row.json()).toMatchObject({ id: created.session.id, transport: 'webrtc', call_id: callId });
  }, 120_000);

  it("the Agents SDK's raw offer with a client secret: its settings apply, and the secret opens exactly one call", async () => {
    const value = await secret({ instructions: 'You are the secret agent.' });
    const p = await peer();
    const headers = {
      Authorization: `Bearer ${value}`,
      'Content-Type': 'application/sdp',
      'X-OpenAI-Agents-SDK': 'test',
    };
    const res = await post('/v1/realtime/calls', { headers, body: p.offer });
    expect(res.status).toBe(201);
    await p.connect(await res.text());
    expect((await p.next('session.created')).session.instructions).toBe('You are the secret agent.');
    const again = await post('/v1/realtime/calls', { headers, body: (await peer()).offer });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('client_secret_used');
    // The peer hangs up: the session ends as requested.
    const id = (await p.next('session.created')).session.id as string;
    p.close();
    await waitFor(async () => (await session(id)).status === 'closed', 15_000);
    expect(await session(id)).toMatchObject({ close_reason: 'close_requested', transport: 'webrtc' });
  }, 60_000);

  it('a client that offers only PCMU is answered in PCMU and heard', async () => {
    app.msPerChar = 20;
    app.chatPlan = () => ({ kind: 'reply', pieces: ['Hello.'] });
    const { p, status, answer } = await connectedPeer(
      async (body) => {
        const res = await post('/v1/realtime/calls', {
          headers: { Authorization: `Bearer ${app.apiKey}`, 'Content-Type': 'application/sdp' },
          body,
        });
        return { status: res.status, answer: await res.text() };
      },
      peers,
      { codecs: 'pcmu' },
    );
    expect(status).toBe(201);
    expect(answer).toMatch(/a=rtpmap:0 PCMU\/8000/);
    expect(answer).not.toMatch(/opus/i);
    await p.next('session.created');
    p.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi.' }] },
    });
    p.send({ type: 'response.create' });
    await p.next('output_audio_buffer.stopped', 0, 20_000);
    expect(p.heard.length).toBeGreaterThan(5);
    expect(heardLevel(p.heard)).toBeGreaterThan(500);
  }, 60_000);

  it('interrupt: output_audio_buffer.clear cuts the answer at once, answered output_audio_buffer.cleared', async () => {
    app.msPerChar = 80;
    app.chatPlan = () => ({
      kind: 'reply',
      pieces: ['This is a long answer that goes on for several seconds at least.'],
    });
    const { p, status } = await connectedPeer(async (body) => {
      const res = await post('/v1/realtime?model=gpt-realtime', {
        headers: { Authorization: `Bearer ${app.apiKey}`, 'Content-Type': 'application/sdp' },
        body,
      });
      return { status: res.status, answer: await res.text() };
    }, peers);
    expect(status).toBe(201);
    await p.next('session.created');
    p.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Talk.' }] },
    });
    p.send({ type: 'response.create' });
    const started = await p.next('output_audio_buffer.started', 0, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    p.send({ type: 'response.cancel' });
    p.send({ type: 'output_audio_buffer.clear' });
    const cleared = await p.next('output_audio_buffer.cleared', 0, 5000);
    expect(cleared.response_id).toBe(started.response_id);
    const clearedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // At most a packet or two was in flight when the clear arrived.
    expect(p.heard.filter((f) => f.at > clearedAt + 100).length).toBe(0);
    expect((await p.next('response.done')).response.status).toBe('cancelled');
  }, 60_000);

  it('a flood on the data channel ends that call (rate_limit_exceeded, control_rate_exceeded); another call runs on', async () => {
    const open = async () => {
      const { p } = await connectedPeer(async (body) => {
        const res = await post('/v1/realtime/calls', {
          headers: { Authorization: `Bearer ${app.apiKey}`, 'Content-Type': 'application/sdp' },
          body,
        });
        return { answer: await res.text() };
      }, peers);
      return { p, id: (await p.next('session.created')).session.id as string };
    };
    const flooder = await open();
    const bystander = await open();
    for (let i = 0; i < 1000; i++) flooder.p.send({ type: 'conversation.item.retrieve', item_id: 'item_none' });
    await waitFor(
      async () => flooder.p.events.some((e) => e.type === 'error' && e.error.code === 'rate_limit_exceeded'),
      10_000,
    );
    await waitFor(async () => (await session(flooder.id)).status === 'closed', 15_000);
    expect(await session(flooder.id)).toMatchObject({ close_reason: 'connection_lost' });
    bystander.p.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Still here.' } });
    expect((await bystander.p.next('session.updated')).session.instructions).toBe('Still here.');
  }, 60_000);

  it('CORS on the calls endpoint: the preflight allows the SDK headers and the answer exposes Location', async () => {
    const res = await fetchTrusting(app.ca)(`${app.t.baseUrl}/v1/realtime/calls`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-openai-agents-sdk',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/x-openai-agents-sdk/);
    const refused = await post('/v1/realtime/calls', {
      headers: { 'Content-Type': 'application/sdp', Origin: 'https://app.example' },
      body: 'v=0',
    });
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(refused.headers.get('access-control-expose-headers')).toMatch(/Location/);
    // Nowhere else widened.
    const other = await fetchTrusting(app.ca)(`${app.t.baseUrl}/v1/sessions`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refusals: no credential 401; malformed SDP, no fingerprint, thousands of candidates 400; too large 413; wrong type 415', async () => {
    const { offer } = await peer();
    const auth = { Authorization: `Bearer ${app.apiKey}`, 'Content-Type': 'application/sdp' };
    const status = async (headers: Record<string, string>, body: string) => {
      const res = await post('/v1/realtime/calls', { headers, body });
      return { status: res.status, body: (await res.json()) as { error: { message: string; param?: string } } };
    };
    expect((await status({ 'Content-Type': 'application/sdp' }, offer)).status).toBe(401);
    const malformed = await status(auth, 'hello');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/not an SDP offer/);
    const noFingerprint = await status(auth, offer.replace(/a=fingerprint:[^\r\n]+\r\n/g, ''));
    expect(noFingerprint.status).toBe(400);
    expect(noFingerprint.body.error.message).toMatch(/DTLS fingerprint/);
    const candidates = Array.from(
      { length: 2000 },
      (_, i) => `a=candidate:${i} 1 UDP 1 10.0.${i >> 8}.${i & 255} 9 typ host`,
    ).join('\r\n');
    const flood = await status(auth, offer.replace(/(m=audio[^\r\n]*\r\n)/, `$1${candidates}\r\n`));
    expect([400, 413]).toContain(flood.status);
    const many = await status(
      auth,
      offer.replace(/(m=audio[^\r\n]*\r\n)/, `$1${candidates.split('\r\n').slice(0, 100).join('\r\n')}\r\n`),
    );
    expect(many.status).toBe(400);
    expect(many.body.error.message).toMatch(/ICE candidates/);
    expect((await status(auth, offer + 'a=x:' + 'y'.repeat(40_000) + '\r\n')).status).toBe(413);
    const json = await post('/v1/realtime/calls', {
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
  }, 30_000);
});
