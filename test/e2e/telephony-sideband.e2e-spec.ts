/**
 * The sideband (`/v1/realtime?call_id=…`) on a phone call: the app's server joins a Twilio call
 * (the scripted fake Twilio against /v1/telephony/twilio) with its API key through the openai SDK's
 * OpenAIRealtimeWS (`callID`), sets the agent's instructions and tools, answers a tool call the
 * caller's keypress started, and the caller hears the answer. The conversation model is a cascade
 * on the embedded recogniser with fake chat and speech upstreams.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { chatBody } from '../../src/engines/cascade/testing/fake-chat-server';
import { startConversationApp, type ConversationApp, type ConversationEvent } from '../support/conversation-app';
import { FakeTwilio } from '../support/fake-twilio';
import { schemaProblems } from '../support/json-schema-check';
import { SocketClient } from '../support/socket-client';
import { fetchTrusting } from '../support/tls-and-words';
import { waitFor } from '../support/wait-for';

const SILENCE = (ms: number) => Buffer.alloc(ms * 8, 0xff);
const ASYNCAPI = JSON.parse(readFileSync(join(__dirname, '../../asyncapi/asyncapi.json'), 'utf8'));

/** The committed AsyncAPI document's schema of a conversation server message. */
function documented(type: string): object {
  const message = ASYNCAPI.channels['realtime-conversation'].messages[type];
  if (message === undefined) throw new Error(`${type} is not documented on the conversation channel`);
  return message.payload;
}
const LOOKUP_ORDER = {
  type: 'function' as const,
  name: 'lookup_order',
  description: "Looks up the caller's order",
  parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
};

describe('the sideband of a Twilio call (/v1/realtime?call_id=…)', () => {
  let app: ConversationApp;
  const open: FakeTwilio[] = [];

  beforeAll(async () => {
    app = await startConversationApp();
  }, 120_000);
  afterAll(async () => {
    for (const twilio of open) twilio.close();
    await app?.close();
  });

  const rest = async (path: string, { body, key = app.apiKey }: { body?: object; key?: string } = {}) => {
    const response = await fetchTrusting(app.ca)(`${app.t.baseUrl}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, any> };
  };
  const wsBase = () => app.t.baseUrl.replace(/^http/, 'ws');

  /** A call in progress: the secret the app's TwiML webhook minted, the stream started, its call id. */
  async function call(): Promise<{ twilio: FakeTwilio; sessionId: string; callId: string }> {
    const secret = (await rest('/v1/realtime/client_secrets', { body: { session: { type: 'realtime' } } })).body;
    const twilio = await FakeTwilio.connect(`${wsBase()}/v1/telephony/twilio`, { ca: app.ca });
    open.push(twilio);
    twilio.start({ token: secret.value });
    await twilio.speak(SILENCE(300));
    let callId: string | null = null;
    await waitFor(async () => (callId = (await rest(`/v1/sessions/${secret.session.id}`)).body.call_id) !== null, 5000);
    return { twilio, sessionId: secret.session.id, callId: callId! };
  }

  /** The app's server joins the call as OpenAI's SDK does (`callID`), every event recorded. */
  async function sideband(callID: string) {
    const client = new OpenAI({ apiKey: app.apiKey, baseURL: `${app.t.baseUrl}/v1`, fetch: fetchTrusting(app.ca) });
    const rt = new OpenAIRealtimeWS({ callID, options: { ca: app.ca } }, client);
    const events: ConversationEvent[] = [];
    rt.on('event', (event) => events.push(event as ConversationEvent));
    rt.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => rt.socket.once('open', resolve).once('error', reject));
    const next = async (type: string, from = 0, timeoutMs = 15_000): Promise<ConversationEvent> => {
      let found: ConversationEvent | undefined;
      await waitFor(async () => (found = events.slice(from).find((e) => e.type === type)) !== undefined, timeoutMs);
      return found!;
    };
    return { rt, events, next };
  }

  it('steers the call: instructions and tools, the keypress as its event, a tool answered that the caller hears; closing it ends nothing, hang-up ends both', async () => {
    app.chatPlan = (request) =>
      chatBody(request).messages.at(-1)?.role === 'tool'
        ? { kind: 'reply', pieces: ['Your order ships today.'] }
        : {
            kind: 'tool_calls',
            calls: [{ id: 'call_order_1', name: 'lookup_order', argumentPieces: ['{"order":"5"}'] }],
          };
    app.msPerChar = 20;
    const { twilio, sessionId, callId } = await call();
    const side = await sideband(callId);

    side.rt.send({
      type: 'session.update',
      session: { type: 'realtime', instructions: 'You track orders.', tools: [LOOKUP_ORDER] },
    });
    await waitFor(async () => side.events.some((e) => e.session?.instructions === 'You track orders.'), 10_000);
    expect(side.events.find((e) => e.session?.instructions === 'You track orders.')).toMatchObject({
      type: 'session.updated',
    });
    expect(side.events.find((e) => e.session?.instructions === 'You track orders.')!.session).toMatchObject({
      id: sessionId,
      instructions: 'You track orders.',
      tools: [expect.objectContaining({ name: 'lookup_order' })],
    });

    // The caller presses 5: the app reads the keypress, and the model (asked by it) calls the tool.
    const pressedAt = Date.now() / 1000;
    twilio.dtmf('5');
    const dtmf = await side.next('input_audio_buffer.dtmf_event_received');
    expect(dtmf.event).toBe('5');
    expect(dtmf.received_at).toBeGreaterThanOrEqual(Math.floor(pressedAt));
    expect(dtmf.received_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(schemaProblems(dtmf, documented(dtmf.type), ASYNCAPI)).toEqual([]);
    const asked = (await side.next('response.done')).response;
    expect(asked.output).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'lookup_order', arguments: '{"order":"5"}' }),
    ]);
    const request = chatBody(app.chat.requests.at(-1)!);
    expect(request.messages[0]).toEqual({ role: 'system', content: 'You track orders.' });
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: '[DTMF 5]' });
    expect(request.tools).toEqual([
      expect.objectContaining({ function: expect.objectContaining({ name: 'lookup_order' }) }),
    ]);

    // The app answers the tool on the sideband; the caller hears the answer.
    const from = side.events.length;
    const heardBefore = twilio.playedMs;
    side.rt.send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: asked.output[0].call_id, output: '{"ships":"today"}' },
    });
    side.rt.send({ type: 'response.create' });
    const answered = (await side.next('response.done', from)).response;
    expect(answered.status).toBe('completed');
    expect(chatBody(app.chat.requests.at(-1)!).messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_order_1',
      content: '{"ships":"today"}',
    });
    await waitFor(async () => twilio.playedMs - heardBefore > 300, 10_000);
    // The answer's transcript reached the sideband; its audio only the caller.
    expect(side.events.some((e) => e.type === 'response.output_audio_transcript.done')).toBe(true);
    expect(side.events.filter((e) => e.type === 'response.output_audio.delta')).toEqual([]);
    expect(side.events.filter((e) => e.type === 'error')).toEqual([]);
    // Everything the sideband read is as the conversation channel documents it.
    expect(side.events.flatMap((e) => schemaProblems(e, documented(e.type), ASYNCAPI, e.type))).toEqual([]);

    // Closing the sideband ends nothing; another joins by the session id.
    side.rt.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(twilio.closed).toBeNull();
    expect((await rest(`/v1/sessions/${sessionId}`)).body.status).toBe('active');
    const again = await sideband(sessionId);
    let closedCode: number | null = null;
    again.rt.socket.on('close', (code) => (closedCode = code));

    expect((await rest(`/v1/realtime/calls/${callId}/hangup`, { body: {} })).status).toBe(204);
    await waitFor(async () => twilio.closed !== null && closedCode !== null, 5000);
    await waitFor(async () => (await rest(`/v1/sessions/${sessionId}`)).body.status === 'closed', 10_000);
    expect((await rest(`/v1/sessions/${sessionId}`)).body).toMatchObject({ close_reason: 'close_requested' });
    // The ended call is no longer joined.
    const late = await SocketClient.refusal(`${wsBase()}/v1/realtime?call_id=${callId}`, {
      ca: app.ca,
      headers: { authorization: `Bearer ${app.apiKey}` },
    });
    expect(late).toMatchObject({ status: 404, body: { error: { code: 'not_found', param: 'call_id' } } });
  }, 90_000);

  it('refuses a client secret, another project key, an unknown call, and input audio on the sideband', async () => {
    const { twilio, sessionId, callId } = await call();
    const url = `${wsBase()}/v1/realtime?call_id=${callId}`;
    const refusal = (key: string, at = url) =>
      SocketClient.refusal(at, { ca: app.ca, headers: { authorization: `Bearer ${key}` } });

    const secret = (await rest('/v1/realtime/client_secrets', { body: { session: { type: 'realtime' } } })).body;
    expect(await refusal(secret.value)).toMatchObject({ status: 403, body: { error: { code: 'permission_denied' } } });
    expect((await rest(`/v1/sessions/${secret.session.id}`)).body.status).toBe('pending');
    const other = await app.t.newProject();
    expect(await refusal(other.apiKey)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await refusal(app.apiKey, `${wsBase()}/v1/realtime?call_id=rtc_unknown1`)).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', param: 'call_id' } },
    });
    expect(await refusal(app.apiKey, `${wsBase()}/v1/realtime?call_id=call_1`)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_parameter', param: 'call_id' } },
    });

    const side = await SocketClient.open(url, { ca: app.ca, headers: { authorization: `Bearer ${app.apiKey}` } });
    side.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(4800).toString('base64'), event_id: 'a1' });
    const error = await side.waitFor('error');
    expect(error.error).toMatchObject({ type: 'invalid_request_error', event_id: 'a1' });
    expect(error.error.message).toMatch(/input_audio_buffer\.append/);
    // The call's audio formats are its carrier's: a sideband cannot change them.
    side.send({
      type: 'session.update',
      session: { type: 'realtime', audio: { output: { format: { type: 'audio/pcm', rate: 24000 } } } },
      event_id: 'f1',
    });
    const refused = await side.waitFor((e) => e.type === 'error' && e.error.event_id === 'f1');
    expect(refused.error).toMatchObject({ type: 'invalid_request_error', param: 'session.audio' });
    // The sideband and the call live on.
    side.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Still here.' } });
    // (The bridge's own session.update, its audio in G.711, may be answered after the sideband joined.)
    await side.waitFor((e) => e.type === 'session.updated' && e.session.instructions === 'Still here.');
    expect(twilio.closed).toBeNull();
    expect((await rest(`/v1/sessions/${sessionId}`)).body.status).toBe('active');
    twilio.stop();
    expect(await side.waitClosed()).toBe(1000);
  }, 60_000);
});
