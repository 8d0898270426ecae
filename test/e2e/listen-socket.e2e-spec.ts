import WebSocket from 'ws';
import { chunks, silence, sleep, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/** 1.2 s of speech (three words for the scripted engine), then 0.8 s of silence. */
const UTTERANCE = Buffer.concat([tone(1200), silence(800)]);
const PCM_24K = 'encoding=linear16&sample_rate=24000';

/** A sine tone as pcm16 at any rate (the sockets' own helpers are 24 kHz). */
function toneAt(rate: number, ms: number, hz = 440, amplitude = 8000): Buffer {
  const samples = Math.round((rate * ms) / 1000);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    pcm.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  return pcm;
}

describe.each(databaseTargets())('listen socket (Deepgram live) on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  let wsUrl: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { CONCURRENT_SESSIONS_LIMIT: '50' } });
    ({ apiKey } = await t.newProject());
    wsUrl = `${t.baseUrl.replace('http', 'ws')}/v1/listen`;
  });
  afterAll(() => t?.close());

  const rest = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${apiKey}` } });
  const newSecret = async (path = '/v1/realtime/client_secrets', session: object = {}) => {
    const res = await rest('POST', path, { session });
    expect(res.statusCode).toBe(200);
    return res.json() as { value: string; session: { id: string } };
  };
  const open = (query: string, authorization = `Token ${apiKey}`) =>
    SocketClient.open(`${wsUrl}?${query}`, { headers: { authorization } });
  const stream = (c: SocketClient, audio: Buffer, ms = 80, rate = 24_000) => {
    const size = Math.round((rate * ms) / 1000) * 2;
    for (let at = 0; at < audio.length; at += size) c.sendRaw(audio.subarray(at, at + size), true);
  };
  const sessionOf = async (id: string) => (await rest('GET', `/v1/sessions/${id}`)).json();
  const closedSession = async (id: string) => {
    for (let i = 0; i < 100; i++) {
      const session = await sessionOf(id);
      if (session.status === 'closed') return session;
      await sleep(50);
    }
    throw new Error(`session ${id} did not close`);
  };
  const metadataOf = (c: SocketClient) => c.events.find((e) => e.type === 'Metadata');

  it('streams interim and final Results, SpeechStarted, UtteranceEnd, Finalize and CloseStream', async () => {
    const c = await open(
      `model=nova-3&language=en-US&${PCM_24K}&channels=1&interim_results=true&punctuate=true&endpointing=300&utterance_end_ms=1000&vad_events=true`,
    );
    await sleep(200);
    expect(c.events).toEqual([]); // Deepgram sends nothing on open
    stream(c, Buffer.concat([UTTERANCE, silence(1200)]));
    const utteranceEnd = await c.waitFor('UtteranceEnd');
    expect(utteranceEnd).toEqual({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 1.2 });
    expect(c.events[0]).toEqual({ type: 'SpeechStarted', channel: [0, 1], timestamp: 0 });
    const results = c.ofType('Results');
    expect(results.filter((r) => !r.is_final).map((r) => r.channel.alternatives[0].transcript)).toEqual([
      'One',
      'One two',
      'One two three',
    ]);
    const final = results.find((r) => r.is_final);
    expect(final).toEqual({
      type: 'Results',
      channel_index: [0, 1],
      duration: 1.2,
      start: 0,
      is_final: true,
      speech_final: true,
      from_finalize: false,
      channel: {
        alternatives: [
          {
            transcript: 'One two three.',
            confidence: 1,
            words: [
              { word: 'one', start: 0, end: 0.4, confidence: 1, punctuated_word: 'One' },
              { word: 'two', start: 0.4, end: 0.8, confidence: 1, punctuated_word: 'two' },
              { word: 'three', start: 0.8, end: 1.2, confidence: 1, punctuated_word: 'three.' },
            ],
          },
        ],
      },
      metadata: {
        request_id: expect.stringMatching(/^sess_/),
        model_info: { name: 'vendor-asr-streaming', version: '1', arch: 'scripted' },
        model_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    });

    c.send({ type: 'KeepAlive' });
    stream(c, tone(800));
    c.send({ type: 'Finalize' });
    const finalized = await c.waitFor((e) => e.type === 'Results' && e.from_finalize === true);
    expect(finalized).toMatchObject({ is_final: true, speech_final: false, start: 3.2, duration: 0.8 });
    expect(finalized.channel.alternatives[0].transcript).toBe('One two.');

    c.send({ type: 'CloseStream' });
    expect(await c.waitClosed()).toBe(1000);
    const metadata = metadataOf(c);
    expect(c.events.at(-1)).toBe(metadata);
    const id = final.metadata.request_id;
    expect(metadata).toEqual({
      type: 'Metadata',
      transaction_key: 'deprecated',
      request_id: id,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      duration: 4,
      channels: 1,
      models: [final.metadata.model_uuid],
      model_info: { [final.metadata.model_uuid]: final.metadata.model_info },
    });
    expect(await closedSession(id)).toMatchObject({
      close_reason: 'close_requested',
      usage: { frames: 50, seconds: 4 },
      audio: { input: { transcription: { language: 'en-US' }, turn_detection: { silence_duration_ms: 300 } } },
    });
  });

  it('resamples 16 kHz audio to the session rate', async () => {
    const c = await open('encoding=linear16&sample_rate=16000');
    stream(c, Buffer.concat([toneAt(16_000, 1200), Buffer.alloc(16 * 800 * 2)]), 80, 16_000);
    const final = await c.waitFor((e) => e.type === 'Results' && e.is_final);
    expect(final.channel.alternatives[0].transcript).toBe('one two three');
    expect(final.channel.alternatives[0].words[0]).not.toHaveProperty('punctuated_word');
    c.sendRaw(Buffer.alloc(0), true); // the legacy CloseStream
    expect(await c.waitClosed()).toBe(1000);
    expect(metadataOf(c).duration).toBe(2);
    expect(await closedSession(final.metadata.request_id)).toMatchObject({ usage: { frames: 25 } });
  });

  it('treats a control message sent as binary as a control message and odd frames as one byte stream', async () => {
    const c = await open(PCM_24K);
    const audio = tone(400);
    c.sendRaw(audio.subarray(0, 1001), true);
    c.sendRaw(audio.subarray(1001), true);
    c.sendRaw(Buffer.from('{"type":"KeepAlive"}'), true);
    c.sendRaw(Buffer.from(JSON.stringify({ type: 'CloseStream' })), true);
    expect(await c.waitClosed()).toBe(1000);
    expect(metadataOf(c).duration).toBe(0.4);
    expect(await closedSession(metadataOf(c).request_id)).toMatchObject({ usage: { frames: 5 } });
  });

  it('ends the stream with 1008 DATA-0000 on a text frame that is no control message', async () => {
    const c = await open(PCM_24K);
    const reason = new Promise<string>((resolve) => c.ws.once('close', (_code, r) => resolve(r.toString())));
    stream(c, tone(160));
    c.sendRaw('AAAA');
    expect(await c.waitClosed()).toBe(1008);
    expect(await reason).toMatch(/^DATA-0000/);
    expect(await closedSession(metadataOf(c).request_id)).toMatchObject({ close_reason: 'connection_lost' });
  });

  it('closes an idle stream after about 10 s with 1011 NET-0001 as expired', async () => {
    const c = await open(PCM_24K);
    const reason = new Promise<string>((resolve) => c.ws.once('close', (_code, r) => resolve(r.toString())));
    stream(c, tone(80));
    const openedAt = Date.now();
    expect(await c.waitClosed(15_000)).toBe(1011);
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(9_500);
    expect(await reason).toMatch(/^NET-0001/);
    expect(metadataOf(c)).toMatchObject({ duration: 0.08 });
    expect(await closedSession(metadataOf(c).request_id)).toMatchObject({ close_reason: 'expired' });
  }, 30_000);

  describe('authentication', () => {
    it.each([
      ['Authorization: Token <API key>', () => ({ headers: { authorization: `Token ${apiKey}` } }), ''],
      ['Authorization: Bearer <API key>', () => ({ headers: { authorization: `bearer ${apiKey}` } }), ''],
    ])('accepts %s', async (_name, options) => {
      const c = await SocketClient.open(`${wsUrl}?${PCM_24K}`, options());
      c.send({ type: 'CloseStream' });
      expect(await c.waitClosed()).toBe(1000);
    });

    it.each([
      ['?token=', (s: string) => ({ query: `&token=${s}`, protocols: undefined, echo: '' })],
      ['the subprotocols token, <secret>', (s: string) => ({ query: '', protocols: ['token', s], echo: 'token' })],
      [
        'the subprotocols bearer, <secret> with a session id',
        (s: string) => ({ query: '', protocols: ['bearer', s, 'x-deepgram-session-id', 'abc'], echo: 'bearer' }),
      ],
    ])('opens a client secret session with %s and names it in dg-request-id', async (_name, form) => {
      const secret = await newSecret();
      const { query, protocols, echo } = form(secret.value);
      const ws = new WebSocket(`${wsUrl}?${PCM_24K}${query}`, protocols ?? []);
      const upgraded = new Promise<string | undefined>((resolve) =>
        ws.once('upgrade', (res) => resolve(res.headers['dg-request-id'] as string | undefined)),
      );
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const requestId = await upgraded;
      expect(ws.protocol).toBe(echo);
      expect(requestId).toBe(secret.session.id);
      expect((await sessionOf(secret.session.id)).status).toBe('active');
      ws.close(1000);
      expect(await closedSession(secret.session.id)).toMatchObject({ close_reason: 'close_requested' });
    });

    it('refuses a secret of a live session with 400 and leaves it unspent', async () => {
      const live = await newSecret('/v1/live/client_secrets', { type: 'live' });
      const refusal = await SocketClient.refusal(`${wsUrl}?${PCM_24K}&token=${live.value}`);
      expect(refusal).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter', param: 'token' } } });
      expect((await sessionOf(live.session.id)).status).toBe('pending');
    });

    it('lets one client secret open exactly one session across the live, realtime and listen sockets', async () => {
      const base = t.baseUrl.replace('http', 'ws');
      const secret = await newSecret();
      const c = await SocketClient.open(`${wsUrl}?${PCM_24K}&token=${secret.value}`);
      for (const url of [
        `${base}/v1/realtime?intent=transcription&`,
        `${base}/v1/live/sessions?`,
        `${wsUrl}?${PCM_24K}&`,
      ]) {
        const refusal = await SocketClient.refusal(`${url}token=${secret.value}`);
        expect(refusal).toMatchObject({ status: 409, body: { error: { code: 'client_secret_used' } } });
      }
      c.send({ type: 'CloseStream' });
      await c.waitClosed();
      const live = await newSecret('/v1/live/client_secrets', { type: 'transcription' });
      const onListen = await SocketClient.open(`${wsUrl}?${PCM_24K}&token=${live.value}`);
      const onRealtime = await SocketClient.refusal(`${base}/v1/realtime?intent=transcription&token=${live.value}`);
      expect(onRealtime.status).toBe(409);
      onListen.ws.close(1000);
    });

    it.each([
      ['no credential', {}, 401, 'missing_api_key'],
      ['an unknown key', { authorization: 'Token wk_nope' }, 401, 'invalid_api_key'],
      ['another scheme', { authorization: `Basic ${apiKey}` }, 401, 'invalid_api_key'],
    ])('refuses %s', async (_name, headers, status, code) => {
      const refusal = await SocketClient.refusal(`${wsUrl}?${PCM_24K}`, { headers });
      expect(refusal).toMatchObject({ status, body: { error: { code } } });
    });
  });

  describe('query parameters', () => {
    it.each([
      ['no encoding', 'sample_rate=24000', 'encoding'],
      ['encoding=opus', 'encoding=opus&sample_rate=48000', 'encoding'],
      ['no sample_rate', 'encoding=linear16', 'sample_rate'],
      ['sample_rate=7000', 'encoding=linear16&sample_rate=7000', 'sample_rate'],
      ['channels=2', `${PCM_24K}&channels=2`, 'channels'],
      ['model=whisper-large', `${PCM_24K}&model=whisper-large`, 'model'],
      ['language=!', `${PCM_24K}&language=!`, 'language'],
      ['interim_results=yes', `${PCM_24K}&interim_results=yes`, 'interim_results'],
      ['endpointing=soon', `${PCM_24K}&endpointing=soon`, 'endpointing'],
      ['utterance_end_ms=-1', `${PCM_24K}&utterance_end_ms=-1`, 'utterance_end_ms'],
    ])('refuses %s with 400 invalid_parameter before spending a secret', async (_name, query, param) => {
      const secret = await newSecret();
      const refusal = await SocketClient.refusal(`${wsUrl}?${query}&token=${secret.value}`);
      expect(refusal).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter', param } } });
      expect((await sessionOf(secret.session.id)).status).toBe('pending');
    });

    it('accepts the parameters it does not act on, and unknown ones', async () => {
      const ignored =
        'smart_format=true&numerals=true&profanity_filter=true&diarize=true&keyterm=Deepgram&keyterm=customer%20service' +
        '&keywords=x:2&redact=pci&tag=t&extra=a:b&mip_opt_out=true&multichannel=false&search=q&replace=a:b&no_such=1';
      const c = await open(`model=vendor-asr-streaming&language=multi&${PCM_24K}&endpointing=false&${ignored}`);
      c.send({ type: 'CloseStream' });
      expect(await c.waitClosed()).toBe(1000);
      const session = await closedSession(metadataOf(c).request_id);
      expect(session.audio.input).toMatchObject({ transcription: { language: 'auto' }, turn_detection: null });
    });
  });

  it('meters what it streams in chunks like the SDK does', async () => {
    const c = await open(PCM_24K);
    for (const chunk of chunks(UTTERANCE, 250)) c.sendRaw(chunk, true);
    c.send({ type: 'CloseStream' });
    await c.waitClosed();
    expect(await closedSession(metadataOf(c).request_id)).toMatchObject({ usage: { frames: 25, seconds: 2 } });
  });
});
