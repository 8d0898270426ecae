/**
 * The native Twilio Media Streams endpoint, /v1/telephony/twilio, against a scripted Twilio (real-time
 * 20 ms mu-law frames of flite's speech, marks echoed when their audio has played, `clear` honoured):
 * a call is the session of the client secret in `start.customParameters.token`. The conversation
 * model is a cascade on the embedded recogniser with fake chat and speech upstreams.
 */
import { chatBody } from '../../src/engines/cascade/testing/fake-chat-server';
import { fliteUtterances, toSessionAudio } from '../../src/engines/embedded/testing/speech-fixtures';
import { g711Decode } from '../../src/platform/audio/g711';
import { startConversationApp, type ConversationApp } from '../support/conversation-app';
import { FakeTwilio, toMulaw } from '../support/fake-twilio';
import { waitFor } from '../support/wait-for';

const SILENCE = (ms: number) => Buffer.alloc(ms * 8, 0xff);

describe('Twilio Media Streams on /v1/telephony/twilio', () => {
  let app: ConversationApp;
  let sayings: Record<string, Buffer>;
  const open: FakeTwilio[] = [];

  beforeAll(async () => {
    app = await startConversationApp({}, { tls: false });
    const texts = ['what time is it right now', 'stop please wait'];
    const spoken = await fliteUtterances('awb', texts);
    sayings = Object.fromEntries(texts.map((text, i) => [text, toMulaw(toSessionAudio(spoken[i].clip), 24_000)]));
  }, 120_000);
  afterAll(async () => {
    for (const twilio of open) twilio.close();
    await app?.close();
  });

  const rest = async (path: string, body?: object) => {
    const response = await fetch(`${app.t.baseUrl}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await response.json()) as Record<string, any>;
  };

  /** What the app's TwiML webhook does: a secret for this call, with the agent's settings. */
  const mintSecret = async (instructions = 'You answer the phone.') =>
    rest('/v1/realtime/client_secrets', { session: { type: 'realtime', instructions } });

  async function call(token?: string): Promise<FakeTwilio> {
    const twilio = await FakeTwilio.connect(`${app.t.baseUrl.replace(/^http/, 'ws')}/v1/telephony/twilio`);
    open.push(twilio);
    twilio.start(token === undefined ? {} : { token });
    return twilio;
  }

  it('a spoken turn: heard, answered as mu-law under the stream sid with marks; stop ends the session as requested', async () => {
    app.chatPlan = () => ({ kind: 'reply', pieces: ['It is noon.'] });
    app.msPerChar = 60;
    const secret = await mintSecret('Tell the time.');
    const twilio = await call(secret.value);
    await twilio.speak(Buffer.concat([SILENCE(300), sayings['what time is it right now'], SILENCE(2000)]));
    await waitFor(async () => twilio.playedMs > 500 && twilio.queuedBytes === 0, 20_000);

    const media = twilio.messages('media');
    expect(new Set(media.map((m) => m.streamSid))).toEqual(new Set([twilio.streamSid]));
    expect(Object.keys(media[0]).sort()).toEqual(['atMs', 'event', 'media', 'streamSid']);
    // 11 characters at 60 ms of voice each, as mu-law (a byte a sample at 8 kHz).
    expect(twilio.playedMs).toBeGreaterThan(11 * 60 - 60);
    expect(twilio.playedMs).toBeLessThan(11 * 60 + 200);
    const voice = g711Decode('mulaw', Buffer.concat(twilio.played));
    expect(Math.max(...voice.slice(0, 4000).map(Math.abs))).toBeGreaterThan(2000);
    // Every chunk came with a mark; Twilio echoed them all as the audio played.
    expect(twilio.messages('mark').length).toBe(media.length);
    const chat = chatBody(app.chat.requests.at(-1)!);
    expect(chat.messages[0]).toEqual({ role: 'system', content: 'Tell the time.' });
    // The caller's words reached the model (8 kHz costs the recogniser words: docs/models.md).
    expect(chat.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/\w+ \w+ \w+/) });

    twilio.stop();
    await waitFor(async () => twilio.closed !== null, 5000);
    await waitFor(async () => (await rest(`/v1/sessions/${secret.session.id}`)).status === 'closed', 10_000);
    const session = await rest(`/v1/sessions/${secret.session.id}`);
    expect(session).toMatchObject({ type: 'live', close_reason: 'close_requested', transport: 'twilio' });
    expect(session.call_id).toMatch(/^rtc_/);
    expect((await rest(`/v1/sessions/${session.call_id}`)).id).toBe(secret.session.id);
    // Metered by the line's duration: every frame Twilio sent, in whole 80 ms frames.
    expect(twilio.sentMs).toBeGreaterThan(2500);
    expect(Math.abs(session.usage.seconds - twilio.sentMs / 1000)).toBeLessThanOrEqual(0.08);
  }, 60_000);

  it('barge-in: clear at once, nothing more of the cut answer, and the answer truncated at what the caller heard', async () => {
    const story = 'Let me tell you a long story about the sea, the ships and the sailors who crossed it.';
    app.chatPlan = (request) =>
      chatBody(request).messages.length <= 2
        ? { kind: 'reply', pieces: [story] }
        : { kind: 'reply', pieces: ['Sure.'] };
    app.msPerChar = 80; // about 7 s of voice
    const secret = await mintSecret();
    const twilio = await call(secret.value);
    await twilio.speak(Buffer.concat([SILENCE(300), sayings['what time is it right now'], SILENCE(1200)]));
    await waitFor(async () => twilio.playedMs >= 1500, 20_000);
    const speaking = twilio.speak(Buffer.concat([sayings['stop please wait'], SILENCE(2000)]));
    await waitFor(async () => twilio.messages('clear').length > 0, 10_000);
    const clear = twilio.messages('clear')[0];
    const heardMs = twilio.clearedAtPlayedMs[0];
    expect(heardMs).toBeLessThan(story.length * 80 - 2000);
    await speaking;
    await waitFor(
      async () => app.chat.requests.length > 0 && chatBody(app.chat.requests.at(-1)!).messages.length > 3,
      15_000,
    );

    // The next answer's context holds what the caller heard of the story, not what was sent.
    const context = chatBody(app.chat.requests.at(-1)!).messages;
    const told = context.find((m: { role: string }) => m.role === 'assistant')!.content as string;
    expect(told.length).toBeGreaterThan(0);
    expect(story.startsWith(told.replace(/[.,]/g, '').split(' ')[0])).toBe(true);
    const heardChars = heardMs / 80;
    expect(told.length).toBeLessThan(heardChars + 25);
    // After the clear, media came only for the next answer ("Sure.": 5 characters).
    const after = twilio.messages('media').filter((m) => m.atMs > clear.atMs);
    const afterBytes = after.reduce((sum, m) => sum + Buffer.from(m.media.payload, 'base64').length, 0);
    expect(afterBytes / 8).toBeLessThan(5 * 80 + 300);
    twilio.stop();
  }, 90_000);

  it('a keypress reaches the model as the caller input, and is answered', async () => {
    app.chatPlan = () => ({ kind: 'reply', pieces: ['You pressed five.'] });
    app.msPerChar = 20;
    const secret = await mintSecret();
    const twilio = await call(secret.value);
    await twilio.speak(SILENCE(400));
    const before = app.chat.requests.length;
    twilio.dtmf('5');
    await waitFor(async () => app.chat.requests.length > before, 10_000);
    expect(chatBody(app.chat.requests.at(-1)!).messages.at(-1)).toEqual({ role: 'user', content: '[DTMF 5]' });
    await waitFor(async () => twilio.playedMs > 200, 10_000);
    twilio.stop();
  }, 30_000);

  it('hang-up from the app ends the call by its call id: the session closes as requested, the stream closes', async () => {
    const secret = await mintSecret();
    const twilio = await call(secret.value);
    await twilio.speak(SILENCE(300));
    let callId: string | null = null;
    await waitFor(async () => (callId = (await rest(`/v1/sessions/${secret.session.id}`)).call_id) !== null, 5000);
    const other = await app.t.newProject();
    const foreign = await fetch(`${app.t.baseUrl}/v1/realtime/calls/${callId}/hangup`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.apiKey}` },
    });
    expect(foreign.status).toBe(404);
    const hung = await fetch(`${app.t.baseUrl}/v1/realtime/calls/${callId}/hangup`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.apiKey}` },
    });
    expect(hung.status).toBe(204);
    await waitFor(async () => twilio.closed !== null, 5000);
    await waitFor(async () => (await rest(`/v1/sessions/${secret.session.id}`)).status === 'closed', 10_000);
    expect(await rest(`/v1/sessions/${secret.session.id}`)).toMatchObject({ close_reason: 'close_requested' });
    const again = await fetch(`${app.t.baseUrl}/v1/realtime/calls/${callId}/hangup`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.apiKey}` },
    });
    expect(again.status).toBe(404);
  }, 30_000);

  it('a dropped stream ends its session as connection_lost', async () => {
    const secret = await mintSecret();
    const twilio = await call(secret.value);
    await twilio.speak(SILENCE(300));
    twilio.ws.terminate();
    await waitFor(async () => (await rest(`/v1/sessions/${secret.session.id}`)).status === 'closed', 10_000);
    expect(await rest(`/v1/sessions/${secret.session.id}`)).toMatchObject({ close_reason: 'connection_lost' });
  }, 30_000);

  it.each([
    ['no token', async (t: FakeTwilio) => t.start({}), 'missing_token'],
    ['an API key as the token', async (t: FakeTwilio) => t.start({ token: app.apiKey }), 'missing_token'],
    ['an unknown secret', async (t: FakeTwilio) => t.start({ token: 'ek_unknown' }), /^token_refused: /],
    ['media before start', async (t: FakeTwilio) => t.sendMedia(SILENCE(20)), 'frame_before_start'],
    ['a binary frame', async (t: FakeTwilio) => t.ws.send(Buffer.alloc(160)), 'binary_frame'],
    ['not JSON', async (t: FakeTwilio) => t.ws.send('{"event":'), 'invalid_json'],
  ])(
    'refuses %s with a close that says why',
    async (_name, act, reason) => {
      const twilio = await FakeTwilio.connect(`${app.t.baseUrl.replace(/^http/, 'ws')}/v1/telephony/twilio`);
      open.push(twilio);
      await act(twilio);
      await waitFor(async () => twilio.closed !== null, 5000);
      expect(twilio.closed!.code).toBe(1008);
      expect(twilio.closed!.reason).toMatch(reason);
      expect(twilio.messages('media')).toEqual([]);
    },
    20_000,
  );

  it('refuses bad base64 in a started call and ends its session', async () => {
    const secret = await mintSecret();
    const twilio = await call(secret.value);
    await twilio.speak(SILENCE(100));
    twilio.send({ event: 'media', streamSid: twilio.streamSid, media: { track: 'inbound', payload: 'not base64!' } });
    await waitFor(async () => twilio.closed !== null, 5000);
    expect(twilio.closed).toEqual({ code: 1008, reason: 'invalid_audio' });
    await waitFor(async () => (await rest(`/v1/sessions/${secret.session.id}`)).status === 'closed', 10_000);
  }, 20_000);

  it('a spent secret cannot open a second call', async () => {
    const secret = await mintSecret();
    const first = await call(secret.value);
    await first.speak(SILENCE(200));
    const second = await call(secret.value);
    await waitFor(async () => second.closed !== null, 5000);
    expect(second.closed!.reason).toBe('token_refused: client_secret_used');
    expect(first.closed).toBeNull();
    first.stop();
  }, 20_000);
});
