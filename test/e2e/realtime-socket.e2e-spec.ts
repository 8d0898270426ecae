import { chunks, silence, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/** One utterance for the scripted engine: 1.2 s of speech (three words), then the 500 ms VAD pause. */
const UTTERANCE = Buffer.concat([tone(1200), silence(800)]);

describe.each(databaseTargets())('realtime socket (OpenAI Realtime transcription) on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  let wsUrl: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { MAX_SESSION_SECONDS: '4', CONCURRENT_SESSIONS_LIMIT: '50' } });
    ({ apiKey } = await t.newProject());
    wsUrl = `${t.baseUrl.replace('http', 'ws')}/v1/realtime`;
  });
  afterAll(() => t?.close());

  const rest = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${apiKey}` } });
  const newSecret = async (path = '/v1/realtime/client_secrets', session: object = {}) => {
    const res = await rest('POST', path, { session });
    expect(res.statusCode).toBe(200);
    return res.json() as { value: string; session: { id: string } };
  };
  const open = (query = '?intent=transcription') =>
    SocketClient.open(`${wsUrl}${query}`, { headers: { authorization: `Bearer ${apiKey}` } });
  const append = (c: SocketClient, audio: Buffer) => {
    for (const chunk of chunks(audio, 100))
      c.send({ type: 'input_audio_buffer.append', audio: chunk.toString('base64') });
  };
  const sessionOf = async (id: string) => (await rest('GET', `/v1/sessions/${id}`)).json();
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
  };

  it('opens with session.created, transcribes VAD turns in order and records close_requested on a 1000 close', async () => {
    const c = await open();
    const created = await c.waitFor('session.created');
    expect(created).toEqual({
      type: 'session.created',
      event_id: expect.any(String),
      session: {
        id: expect.stringMatching(/^sess_/),
        object: 'realtime.transcription_session',
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            noise_reduction: null,
            transcription: { model: 'vendor-asr-streaming' },
            turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
          },
        },
        expires_at: expect.any(Number),
        include: [],
      },
    });
    expect(c.events[0].type).toBe('session.created');
    append(c, Buffer.concat([UTTERANCE, UTTERANCE]));
    await c.waitFor((e) => e.type.endsWith('.completed') && c.ofType(e.type).length === 2);

    const [first, second] = c.ofType('input_audio_buffer.committed');
    expect(first).toMatchObject({ item_id: expect.any(String), previous_item_id: null });
    expect(second).toMatchObject({ previous_item_id: first.item_id });
    const [started] = c.ofType('input_audio_buffer.speech_started');
    expect(started).toMatchObject({ item_id: first.item_id, audio_start_ms: 0 });
    expect(c.ofType('input_audio_buffer.speech_stopped')[0]).toMatchObject({
      item_id: first.item_id,
      audio_end_ms: 1200,
    });
    const deltas = c
      .ofType('conversation.item.input_audio_transcription.delta')
      .filter((d) => d.item_id === first.item_id);
    expect(deltas.map((d) => d.delta).join('')).toBe('one two three');
    expect(deltas[0]).toMatchObject({ content_index: 0 });
    const completed = c.ofType('conversation.item.input_audio_transcription.completed');
    expect(completed[0]).toMatchObject({
      item_id: first.item_id,
      content_index: 0,
      transcript: 'one two three',
      usage: { type: 'duration', seconds: 1.2 },
    });
    expect(completed[1]).toMatchObject({ item_id: second.item_id, transcript: 'one two three' });
    const order = c.events.filter((e) => e.item_id === first.item_id).map((e) => e.type);
    expect(order.indexOf('input_audio_buffer.speech_stopped')).toBeLessThan(
      order.indexOf('input_audio_buffer.committed'),
    );
    expect(order.at(-1)).toBe('conversation.item.input_audio_transcription.completed');
    const ids = c.events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);

    c.ws.close(1000, 'OK');
    const id = created.session.id;
    await until(async () => (await sessionOf(id)).status === 'closed');
    expect(await sessionOf(id)).toMatchObject({
      type: 'transcription',
      model: 'vendor-asr-streaming',
      status: 'closed',
      close_reason: 'close_requested',
      usage: { frames: 50, seconds: 4 },
    });
  });

  it.each([
    ['?token=', (s: string) => ({ query: `?intent=transcription&token=${s}`, options: {} })],
    ['Authorization: Bearer', (s: string) => ({ query: '', options: { headers: { authorization: `Bearer ${s}` } } })],
    [
      'the browser subprotocols',
      (s: string) => ({
        query: '?intent=transcription',
        options: { protocols: ['realtime', `openai-insecure-api-key.${s}`, 'openai-project.proj_1'] },
      }),
    ],
  ])('opens a client secret session with %s', async (_name, form) => {
    const secret = await newSecret();
    const { query, options } = form(secret.value);
    const c = await SocketClient.open(`${wsUrl}${query}`, options);
    if (query === '?intent=transcription') expect(c.ws.protocol).toBe('realtime');
    const created = await c.waitFor('session.created');
    expect(created.session.id).toBe(secret.session.id);
    expect((await sessionOf(secret.session.id)).status).toBe('active');
    c.ws.close(1000);
    await c.waitClosed();
  });

  it('applies a session.update made before the audio (manual commits, language) and records it', async () => {
    const secret = await newSecret('/v1/realtime/client_secrets', {
      audio: { input: { transcription: { language: 'auto', prompt: 'names' } } },
    });
    const c = await SocketClient.open(`${wsUrl}?intent=transcription&token=${secret.value}`);
    c.send({
      type: 'session.update',
      event_id: 'u1',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            noise_reduction: { type: 'near_field' },
            transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: '' },
            turn_detection: null,
          },
        },
        include: ['item.input_audio_transcription.logprobs'],
      },
    });
    const updated = await c.waitFor('session.updated');
    expect(updated).not.toHaveProperty('client_event_id');
    expect(updated.session.audio.input).toEqual({
      format: { type: 'audio/pcm', rate: 24000 },
      noise_reduction: null,
      transcription: { model: 'vendor-asr-streaming', language: 'en' },
      turn_detection: null,
    });
    append(c, UTTERANCE);
    c.send({ type: 'input_audio_buffer.commit', event_id: 'c1' });
    const completed = await c.waitFor('conversation.item.input_audio_transcription.completed');
    const committed = c.ofType('input_audio_buffer.committed')[0];
    expect(committed.item_id).toBe(completed.item_id);
    expect(completed.transcript).toBe('one two three');
    expect(c.ofType('input_audio_buffer.speech_started')).toEqual([]);

    c.send({
      type: 'session.update',
      event_id: 'u2',
      session: { type: 'transcription', audio: { input: { turn_detection: { type: 'server_vad' } } } },
    });
    const locked = await c.waitFor('error');
    expect(locked.error).toEqual({
      type: 'invalid_request_error',
      code: 'session_config_locked',
      message: expect.any(String),
      param: 'session.audio.input.turn_detection',
      event_id: 'u2',
    });
    const stored = await sessionOf(secret.session.id);
    expect(stored.audio.input).toMatchObject({
      transcription: { language: 'en', prompt: 'names' },
      turn_detection: null,
    });
    c.ws.close(1000);
  });

  it('answers bad events with Realtime errors that echo the event_id and keeps the session', async () => {
    const c = await open();
    await c.waitFor('session.created');
    c.sendRaw('{nope');
    c.send({ type: 'no.such.event', event_id: 'e1' });
    c.send({ type: 'input_audio_buffer.append', audio: '!!!!', event_id: 'e2' });
    c.send({ type: 'input_audio_buffer.commit', event_id: 'e3' });
    c.send({ type: 'session.update', event_id: 'e4', session: { type: 'realtime' } });
    c.send({ type: 'transcription_session.update', event_id: 'e5', session: {} });
    c.send({ type: 'response.create', event_id: 'e6' });
    c.send({ type: 'session.update', event_id: 'e7', session: { type: 'transcription', voice: 'marin' } });
    c.send({ type: 'input_audio_buffer.clear', event_id: 'e8' });
    await c.waitFor('input_audio_buffer.cleared');
    const errors = c.ofType('error').map((e) => [e.error.event_id, e.error.code, e.error.param]);
    expect(errors).toEqual([
      [null, 'invalid_json', null],
      ['e1', 'invalid_value', 'type'],
      ['e2', 'invalid_audio', 'audio'],
      ['e3', 'input_audio_buffer_commit_empty', null],
      ['e4', 'invalid_value', 'session.type'],
      ['e5', 'invalid_value', 'type'],
      ['e6', 'unsupported_event', 'type'],
      ['e7', 'unknown_parameter', 'session.voice'],
    ]);
    expect(c.ofType('error').every((e) => e.error.type === 'invalid_request_error')).toBe(true);
    expect(c.closeCode).toBeNull();
    c.ws.close(1000);
  });

  it('ends at the maximum duration with session_expired after the last transcript, and closes 1000', async () => {
    const c = await open();
    const created = await c.waitFor('session.created');
    c.send({ type: 'session.update', session: { audio: { input: { turn_detection: null } } } });
    await c.waitFor('session.updated');
    append(c, tone(400));
    c.send({ type: 'input_audio_buffer.commit' });
    c.send({ type: 'input_audio_buffer.append', audio: tone(80).toString('base64') });
    const expired = await c.waitFor((e) => e.error?.code === 'session_expired', 8000);
    expect(expired.error.message).toContain('4 seconds');
    // The speech still open at the end is transcribed as the engine closes, before the error.
    const completed = c.ofType('conversation.item.input_audio_transcription.completed');
    expect(completed.map((e) => e.transcript)).toEqual(['one', 'one']);
    expect(c.events.indexOf(completed[1])).toBeLessThan(c.events.indexOf(expired));
    expect(await c.waitClosed()).toBe(1000);
    const stored = await sessionOf(created.session.id);
    expect(stored).toMatchObject({ status: 'closed', close_reason: 'expired' });
  });

  it('records a dropped socket as connection_lost', async () => {
    const c = await open();
    const created = await c.waitFor('session.created');
    append(c, tone(160));
    c.ws.terminate();
    await until(async () => (await sessionOf(created.session.id)).status === 'closed');
    expect(await sessionOf(created.session.id)).toMatchObject({
      close_reason: 'connection_lost',
      usage: { frames: 2 },
    });
  });

  describe('refusals before the upgrade', () => {
    it('refuses a secret of a live session with 400 and leaves it unspent', async () => {
      const live = await newSecret('/v1/live/client_secrets', { type: 'live' });
      const refusal = await SocketClient.refusal(`${wsUrl}?intent=transcription&token=${live.value}`);
      expect(refusal).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter', param: 'token' } } });
      expect((await sessionOf(live.session.id)).status).toBe('pending');
    });

    it.each([
      ['a model it does not serve', '?model=gpt-unknown', 'model'],
      ['a conversation model with intent=transcription', '?intent=transcription&model=vendor-voicechat', 'model'],
      ['another intent', '?intent=conversation', 'intent'],
      ['a call id of no call id form', '?call_id=call_1', 'call_id'],
    ])('refuses %s with 400 invalid_parameter', async (_name, query, param) => {
      const refusal = await SocketClient.refusal(`${wsUrl}${query}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(refusal).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter', param } } });
    });

    it('accepts ?model= naming a transcription model', async () => {
      const c = await open('?model=gpt-4o-transcribe');
      await c.waitFor('session.created');
      c.ws.close(1000);
    });

    it.each([
      ['no credential', {}, '', 401, 'missing_api_key'],
      ['an API key in the URL', {}, '?token=KEY', 401, 'api_key_in_query'],
      ['an unknown secret', {}, '?token=ek_nope', 401, 'invalid_client_secret'],
      ['an unknown key', { authorization: 'Bearer wk_nope' }, '', 401, 'invalid_api_key'],
    ])('refuses %s', async (_name, headers, query, status, code) => {
      const refusal = await SocketClient.refusal(`${wsUrl}${query.replace('KEY', apiKey)}`, {
        headers: headers as Record<string, string>,
      });
      expect(refusal).toMatchObject({ status, body: { error: { code } } });
    });

    it('refuses an API key in the browser subprotocol with api_key_in_subprotocol, a header beside it or not', async () => {
      const protocols = ['realtime', `openai-insecure-api-key.${apiKey}`];
      for (const headers of [{}, { authorization: `Bearer ${apiKey}` }] as Record<string, string>[]) {
        const refusal = await SocketClient.refusal(`${wsUrl}?model=gpt-realtime`, { protocols, headers });
        expect(refusal).toMatchObject({ status: 401, body: { error: { code: 'api_key_in_subprotocol' } } });
      }
    });
  });
});
