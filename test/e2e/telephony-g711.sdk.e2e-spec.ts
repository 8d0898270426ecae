/**
 * Phone audio (G.711 at 8 kHz) on the compatible sockets, driven by the clients telephony users run:
 * OpenAI's own Twilio bridge (`TwilioRealtimeTransportLayer` from @openai/agents-extensions,
 * unmodified, in a bridge server as its documentation has it) between a scripted Twilio and
 * /v1/realtime; the openai SDK's client secret with `audio/pcmu`; Deepgram's SDK with
 * `encoding=mulaw`. The caller's voice is flite's speech sent as real-time 20 ms mu-law frames; the
 * conversation model is a cascade on the embedded recogniser with fake chat and speech upstreams.
 */
import { TwilioRealtimeTransportLayer } from '@openai/agents-extensions';
import { RealtimeAgent, RealtimeSession } from '@openai/agents/realtime';
import { DeepgramClient } from '@deepgram/sdk';
import OpenAI from 'openai';
import { WebSocket, WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { fliteUtterances, toSessionAudio } from '../../src/engines/embedded/testing/speech-fixtures';
import { g711Decode } from '../../src/platform/audio/g711';
import { startConversationApp, type ConversationApp } from '../support/conversation-app';
import { FakeTwilio, toMulaw } from '../support/fake-twilio';
import { waitFor } from '../support/wait-for';

type Event = { type: string; [key: string]: any };

const SILENCE = (ms: number) => Buffer.alloc(ms * 8, 0xff);

describe('G.711 on the compatible sockets with the official clients', () => {
  let app: ConversationApp;
  let bridge: WebSocketServer;
  let sayings: Record<string, Buffer>;
  /** What each bridged call's RealtimeSession saw of the service. */
  const calls: { events: Event[]; errors: unknown[]; session: RealtimeSession }[] = [];

  beforeAll(async () => {
    app = await startConversationApp({}, { tls: false });
    const texts = ['what time is it right now', 'stop please wait'];
    const spoken = await fliteUtterances('awb', texts);
    sayings = Object.fromEntries(texts.map((text, i) => [text, toMulaw(toSessionAudio(spoken[i].clip), 24_000)]));
    // The app's bridge server, as OpenAI's Twilio example writes it: one RealtimeSession per stream.
    bridge = new WebSocketServer({ port: 0 });
    bridge.on('connection', (twilioWebSocket) => {
      const transport = new TwilioRealtimeTransportLayer({
        twilioWebSocket: twilioWebSocket as never,
        createWebSocket: async ({ url }) =>
          new WebSocket(url, { headers: { authorization: `Bearer ${app.apiKey}` } }) as never,
      });
      const call = { events: [] as Event[], errors: [] as unknown[], session: null as unknown as RealtimeSession };
      transport.on('*', (event: Event) => call.events.push(event));
      // With @openai/agents 0.20 the session's default pcm formats reach the bridge first, and it keeps
      // formats it is given: its users name mu-law themselves (OpenAI's server would play pcm to Twilio too).
      call.session = new RealtimeSession(new RealtimeAgent({ name: 'Operator', instructions: 'Answer the caller.' }), {
        transport,
        model: 'vendor-voicechat',
        config: { audio: { input: { format: 'g711_ulaw' }, output: { format: 'g711_ulaw' } } },
      });
      call.session.on('error', (error) => call.errors.push(error));
      calls.push(call);
      void call.session.connect({
        apiKey: app.apiKey,
        url: `${app.t.baseUrl.replace(/^http/, 'ws')}/v1/realtime?model=gpt-realtime`,
      });
    });
  }, 120_000);
  afterAll(async () => {
    for (const call of calls) call.session.close();
    for (const client of bridge?.clients ?? []) client.terminate();
    await new Promise((resolve) => bridge?.close(resolve));
    await app?.close();
  });

  const rest = (path: string) =>
    fetch(`${app.t.baseUrl}${path}`, { headers: { authorization: `Bearer ${app.apiKey}` } }).then(
      (r) => r.json() as Promise<Record<string, any>>,
    );

  async function dialIn(): Promise<{ twilio: FakeTwilio; call: (typeof calls)[number] }> {
    const twilio = await FakeTwilio.connect(`ws://127.0.0.1:${(bridge.address() as AddressInfo).port}`);
    await waitFor(async () => calls.length > 0 && calls.at(-1)!.events.some((e) => e.type === 'session.updated'));
    const call = calls.at(-1)!;
    twilio.start({});
    return { twilio, call };
  }

  it("OpenAI's Twilio bridge: a spoken turn in mu-law is heard, answered in mu-law with marks, and metered by its duration", async () => {
    app.chatPlan = () => ({ kind: 'reply', pieces: ['It is noon.'] });
    app.msPerChar = 60;
    const { twilio, call } = await dialIn();
    const asked = Buffer.concat([SILENCE(300), sayings['what time is it right now'], SILENCE(2500)]);
    await twilio.speak(asked);
    await waitFor(async () => call.events.some((e) => e.type === 'response.done'), 20_000);
    await waitFor(async () => twilio.queuedBytes === 0 && twilio.playedBytes > 0, 5000);

    const updated = call.events.filter((e) => e.type === 'session.updated').at(-1)!;
    expect(updated.session.audio.input.format).toEqual({ type: 'audio/pcmu' });
    expect(updated.session.audio.output.format).toEqual({ type: 'audio/pcmu' });
    const heard = call.events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!;
    expect(heard.transcript).toMatch(/\w+ \w+ \w+/);
    const done = call.events.find((e) => e.type === 'response.done')!.response;
    expect(done).toMatchObject({ status: 'completed', audio: { output: { format: { type: 'audio/pcmu' } } } });

    // The answer went to Twilio as mu-law of the right length (11 characters × 60 ms of voice),
    // under the stream's sid, with marks Twilio echoed.
    const media = twilio.messages('media');
    expect(media.length).toBeGreaterThan(0);
    expect(new Set(media.map((m) => m.streamSid))).toEqual(new Set([twilio.streamSid]));
    const answerMs = twilio.playedMs;
    expect(answerMs).toBeGreaterThan(11 * 60 - 60);
    expect(answerMs).toBeLessThan(11 * 60 + 200);
    expect(twilio.messages('mark').length).toBeGreaterThan(0);
    const voice = g711Decode('mulaw', Buffer.concat(twilio.played));
    expect(Math.max(...voice.slice(0, 4000).map(Math.abs))).toBeGreaterThan(2000);
    expect(call.errors).toEqual([]);

    const sessionId = call.events.find((e) => e.type === 'session.created')!.session.id;
    call.session.close();
    twilio.close();
    await waitFor(async () => (await rest(`/v1/sessions/${sessionId}`)).status === 'closed', 10_000);
    const closed = await rest(`/v1/sessions/${sessionId}`);
    // Metered by the audio's duration (80 ms frames), not by its bytes (a third of pcm16's).
    const askedSeconds = asked.length / 8000;
    expect(closed.usage.seconds).toBeGreaterThan(askedSeconds - 0.5);
    expect(closed.usage.seconds).toBeLessThan(askedSeconds + 1.5);
  }, 90_000);

  it("OpenAI's Twilio bridge: barging in clears Twilio and truncates the answer at what the caller heard", async () => {
    app.chatPlan = () => ({
      kind: 'reply',
      pieces: ['Let me tell you a long story about the sea, the ships and the sailors who crossed it.'],
    });
    app.msPerChar = 80; // about 7 s of voice
    const { twilio, call } = await dialIn();
    await twilio.speak(Buffer.concat([SILENCE(300), sayings['what time is it right now'], SILENCE(1500)]));
    await waitFor(async () => twilio.playedMs >= 1500, 20_000);
    await twilio.speak(Buffer.concat([sayings['stop please wait'], SILENCE(2000)]));
    await waitFor(async () => call.events.some((e) => e.type === 'conversation.item.truncated'), 15_000);

    expect(twilio.messages('clear').length).toBeGreaterThanOrEqual(1);
    const truncated = call.events.find((e) => e.type === 'conversation.item.truncated')!;
    const heardMs = twilio.clearedAtPlayedMs[0];
    // Truncated where the caller was when the bridge asked (marks are one per delta: 100 ms here),
    // not where the service had sent to (it paces ahead of what Twilio played).
    expect(truncated.audio_end_ms).toBeGreaterThan(1500 - 200);
    expect(truncated.audio_end_ms).toBeLessThanOrEqual(heardMs + 100);
    expect(heardMs).toBeLessThan(80 * 80 - 1000);
    const item = call.events.filter((e) => e.type === 'response.done').at(0)!.response.output[0];
    expect(item.content[0].transcript.length).toBeGreaterThan(0);
    expect(call.errors).toEqual([]);
    call.session.close();
    twilio.close();
  }, 90_000);

  it('a transcription client secret with audio/pcmu transcribes mu-law from the first frame', async () => {
    const client = new OpenAI({ apiKey: app.apiKey, baseURL: `${app.t.baseUrl}/v1` });
    const secret = await client.realtime.clientSecrets.create({
      session: {
        type: 'transcription',
        audio: { input: { format: { type: 'audio/pcmu' } } },
      },
    } as never);
    expect((secret.session as any).audio.input.format).toEqual({ type: 'audio/pcmu', rate: 8000 });
    const ws = new WebSocket(`${app.t.baseUrl.replace(/^http/, 'ws')}/v1/realtime`, {
      headers: { authorization: `Bearer ${secret.value}` },
    });
    const events: Event[] = [];
    ws.on('message', (data) => events.push(JSON.parse(data.toString())));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    await waitFor(async () => events.some((e) => e.type === 'session.created'));
    expect(events[0].session.audio.input.format).toEqual({ type: 'audio/pcmu' });
    const audio = Buffer.concat([SILENCE(300), sayings['what time is it right now'], SILENCE(1500)]);
    for (let at = 0; at < audio.length; at += 1600) {
      ws.send(
        JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.subarray(at, at + 1600).toString('base64') }),
      );
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    await waitFor(
      async () => events.some((e) => e.type === 'conversation.item.input_audio_transcription.completed'),
      20_000,
    );
    const done = events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!;
    expect(done.transcript).toMatch(/\w+ \w+ \w+/);
    // Times are the audio's own: speech began after the 300 ms of silence, not a third of the way in.
    const started = events.find((e) => e.type === 'input_audio_buffer.speech_started')!;
    expect(started.audio_start_ms).toBeGreaterThan(100);
    expect(started.audio_start_ms).toBeLessThan(800);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    ws.close();
  }, 60_000);

  it("Deepgram's SDK with encoding=mulaw&sample_rate=8000: a final transcript and the stream's duration", async () => {
    const deepgram = new DeepgramClient({ apiKey: app.apiKey, baseUrl: app.t.baseUrl.replace(/^http/, 'ws') });
    const connection = await deepgram.listen.v1.connect({
      model: 'nova-2-phonecall',
      encoding: 'mulaw',
      sample_rate: 8000,
      channels: 1,
      reconnectAttempts: 0,
    } as never);
    const messages: Event[] = [];
    connection.on('message', (message) => messages.push(message as Event));
    connection.connect();
    await connection.waitForOpen();
    const audio = Buffer.concat([SILENCE(300), sayings['what time is it right now'], SILENCE(1500)]);
    for (let at = 0; at < audio.length; at += 1600) {
      connection.sendMedia(audio.subarray(at, at + 1600));
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    await waitFor(async () => messages.some((m) => m.type === 'Results' && m.is_final), 20_000);
    connection.sendCloseStream({ type: 'CloseStream' });
    await waitFor(async () => messages.some((m) => m.type === 'Metadata'), 10_000);
    const final = messages.find((m) => m.type === 'Results' && m.is_final)!;
    expect(final.channel.alternatives[0].transcript.toLowerCase()).toMatch(/\w+ \w+ \w+/);
    expect(messages.find((m) => m.type === 'Metadata')!.duration).toBeCloseTo(audio.length / 8000, 2);
  }, 60_000);
});
