/**
 * The sideband on a WebRTC call: the `openai` SDK's realtime.calls.create (API key) answered, the client
 * peer (node-datachannel) on its `oai-events` channel, and the app's server joined with
 * OpenAIRealtimeWS({ callID }): what it asks is what the caller's channel sees and hears.
 */
import { cleanup } from 'node-datachannel';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import {
  randomCallPort,
  startConversationApp,
  type ConversationApp,
  type ConversationEvent,
} from '../support/conversation-app';
import { fetchTrusting } from '../support/tls-and-words';
import { waitFor } from '../support/wait-for';
import { connectedPeer, heardLevel, type ClientPeer } from '../support/webrtc-peer';

describe('the sideband of a WebRTC call', () => {
  let app: ConversationApp;
  let openai: OpenAI;
  const peers: ClientPeer[] = [];

  beforeAll(async () => {
    app = await startConversationApp({ WEBRTC_UDP_PORT: randomCallPort() });
    openai = new OpenAI({ apiKey: app.apiKey, baseURL: `${app.t.baseUrl}/v1`, fetch: fetchTrusting(app.ca) });
  }, 120_000);
  afterAll(async () => {
    for (const p of peers) p.close();
    await app?.close();
    cleanup(); // libdatachannel's threads, which would keep the worker alive
  });

  const session = async (id: string) =>
    (await (
      await fetchTrusting(app.ca)(`${app.t.baseUrl}/v1/sessions/${id}`, {
        headers: { Authorization: `Bearer ${app.apiKey}` },
      })
    ).json()) as Record<string, unknown>;

  it('joins by the call id: its instructions and response reach the caller, who hears the answer; closing it ends nothing, hang-up ends both', async () => {
    app.msPerChar = 20;
    app.chatPlan = () => ({ kind: 'reply', pieces: ['Your table is ready.'] });
    const { p, callId } = await connectedPeer(async (sdp) => {
      const res = await openai.realtime.calls.create({ sdp, session: { type: 'realtime', model: 'gpt-realtime' } });
      return { answer: await res.text(), callId: res.headers.get('location')!.split('/').pop()! };
    }, peers);
    const created = await p.next('session.created');

    const rt = new OpenAIRealtimeWS({ callID: callId, options: { ca: app.ca } }, openai);
    const events: ConversationEvent[] = [];
    rt.on('event', (event) => events.push(event as ConversationEvent));
    rt.on('error', () => undefined);
    let sidebandClosed: number | null = null;
    rt.socket.on('close', (code) => (sidebandClosed = code));
    await new Promise<void>((resolve, reject) => rt.socket.once('open', resolve).once('error', reject));
    const seen = (type: string) => waitFor(async () => events.some((e) => e.type === type), 15_000);

    rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Seat the guests.' } });
    await seen('session.updated');
    expect(events.find((e) => e.type === 'session.updated')!.session).toMatchObject({
      id: created.session.id,
      instructions: 'Seat the guests.',
    });
    // The caller's channel sees the change the server made.
    expect((await p.next('session.updated')).session.instructions).toBe('Seat the guests.');

    const heardBefore = p.heard.length;
    rt.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Is my table ready?' }] },
    });
    rt.send({ type: 'response.create' });
    await seen('response.done');
    const done = events.find((e) => e.type === 'response.done')!;
    expect(done.response).toMatchObject({
      status: 'completed',
      output: [{ content: [{ transcript: 'Your table is ready.' }] }],
    });
    expect((await p.next('response.done', 0, 15_000)).response.id).toBe(done.response.id);
    // The caller heard it over RTP, loud enough to hear.
    await waitFor(async () => p.heard.length - heardBefore > 10, 10_000);
    expect(heardLevel(p.heard.slice(heardBefore))).toBeGreaterThan(500);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);

    // One client's fault never reaches the other: each refusal is told to the connection that sent it alone.
    const callerErrors = () => p.events.filter((e) => e.type === 'error').map((e) => e.error.event_id as string);
    const sidebandErrors = () => events.filter((e) => e.type === 'error').map((e) => e.error.event_id as string);
    rt.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(4800).toString('base64'), event_id: 'side_1' });
    p.send({ type: 'conversation.item.retrieve', item_id: 'item_none', event_id: 'caller_1' });
    await waitFor(async () => sidebandErrors().length > 0 && callerErrors().length > 0, 10_000);
    // What follows on both, in order after any error either could have been sent: the last update.
    rt.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Seat them now.' } });
    const updated = (e: ConversationEvent) =>
      e.type === 'session.updated' && e.session.instructions === 'Seat them now.';
    await waitFor(async () => events.some(updated) && p.events.some(updated), 10_000);
    expect(sidebandErrors()).toEqual(['side_1']);
    expect(callerErrors()).toEqual(['caller_1']);

    rt.close();
    await waitFor(async () => sidebandClosed !== null, 5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await session(callId)).status).toBe('active');

    const hung = await fetchTrusting(app.ca)(`${app.t.baseUrl}/v1/realtime/calls/${callId}/hangup`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${app.apiKey}` },
    });
    expect(hung.status).toBe(204);
    await waitFor(async () => (await session(callId)).status === 'closed', 15_000);
    expect(await session(callId)).toMatchObject({ close_reason: 'close_requested', transport: 'webrtc' });
  }, 120_000);
});
