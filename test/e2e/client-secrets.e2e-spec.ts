import { createHash } from 'node:crypto';
import { CAPACITY_GATE, type CapacityGate } from '../../src/engines';

import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { createSecret, expectError, expectIssue, LIVE, REALTIME, setBalance } from './client-secrets-fixtures';

const VAD = { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 };
const END_OF_TURN = { eot_threshold: 0.7, eager_eot_threshold: 0.4, eot_timeout_ms: 5000 };

describe.each(databaseTargets())('client secrets on %s', (target) => {
  let t: TestApp;
  let key: string;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' } });
  });
  afterAll(() => t?.close());
  // A fresh project per test: the default limit of 10 open sessions is per project.
  beforeEach(async () => {
    ({ apiKey: key, projectId } = await t.newProject());
  });

  const create = (body: unknown = {}, path = LIVE, headers: Record<string, string> = {}) =>
    createSecret(t, key, body, { path, headers });

  describe('response', () => {
    it('issues a live session with every field and default for an empty body (200, not 201)', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await create({}, LIVE, { host: 'speech.test:8443' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['expires_at', 'session', 'value']);
      expect(body.value).toMatch(/^ek_[0-9A-Za-z]{65}$/);
      expect(body.expires_at).toBeGreaterThanOrEqual(before + 59);
      expect(body.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 60);
      expect(body.session).toEqual({
        id: expect.stringMatching(/^sess_[0-9A-Za-z]{24}$/),
        object: 'session',
        type: 'live',
        model: 'vendor-voicechat',
        pool: 'default',
        region: 'local',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { language: 'auto' },
            turn_detection: { ...VAD, end_of_turn: END_OF_TURN },
            noise_reduction: null,
          },
          output: { voice: 'aria', encoding: 'base64' },
        },
        live_url: 'ws://speech.test:8443/v1/live/sessions',
        ingress: {
          transport: 'websocket',
          token_query_parameter: 'token',
          audio: { encoding: 'pcm16', sample_rate: 24000, channels: 1, frame_ms: 80, frame_bytes: 3840 },
          max_session_seconds: 120,
          compatible_urls: { realtime: null, listen: null, listen_v2: null },
        },
        metadata: {},
      });
    });

    it('stores only the SHA-256 of the secret, with a pending session', async () => {
      const { value, session, expires_at } = (await create()).json();
      const [secret] = await t.dataSource.query('SELECT * FROM client_secrets WHERE session_id = $1', [session.id]);
      expect(secret.secret_hash).toBe(createHash('sha256').update(value).digest('hex'));
      expect(JSON.stringify(secret)).not.toContain(value.slice(3));
      const [row] = await t.dataSource.query('SELECT * FROM sessions WHERE id = $1', [session.id]);
      expect(row).toMatchObject({ project_id: projectId, status: 'pending', started_at: null, type: 'live' });
      expect(Math.floor(new Date(row.expires_at).getTime() / 1000)).toBe(expires_at);
      expect(t.logs.join('')).not.toContain(value.slice(3));
    });

    it('builds live_url from X-Forwarded-Proto (https → wss)', async () => {
      const res = await create({}, LIVE, { host: 'api.example.com', 'x-forwarded-proto': 'https' });
      expect(res.json().session.live_url).toBe('wss://api.example.com/v1/live/sessions');
    });

    it('makes a transcription session with the streaming model and its compatible sockets', async () => {
      const res = await create({ session: { type: 'transcription' } }, LIVE, { host: 'h.test' });
      expect(res.statusCode).toBe(200);
      expect(res.json().session).toMatchObject({
        object: 'session',
        type: 'transcription',
        model: 'vendor-asr-streaming',
        audio: { input: { transcription: { language: 'auto', model: 'vendor-asr-streaming' } }, output: null },
        ingress: {
          compatible_urls: {
            realtime: 'ws://h.test/v1/realtime?intent=transcription',
            listen: 'ws://h.test/v1/listen',
            listen_v2: 'ws://h.test/v2/listen',
          },
        },
      });
    });

    it('echoes metadata and every requested setting', async () => {
      const metadata = {
        user: 'u-1',
        ['k'.repeat(64)]: 'v'.repeat(512),
        ...Object.fromEntries([...Array(14)].map((_, i) => [`n${i}`, ''])),
      };
      const res = await create({
        expires_after: { anchor: 'created_at', seconds: 600 },
        metadata,
        session: {
          type: 'live',
          model: 'vendor-voicechat',
          include: ['item.input_audio_transcription.logprobs'],
          audio: {
            input: {
              format: { type: 'audio/pcm', rate: 24000 },
              noise_reduction: { type: 'far_field', strength: 0.3 },
              transcription: { language: 'en-US', prompt: 'Ada Lovelace' },
              turn_detection: {
                type: 'server_vad',
                threshold: 0.8,
                prefix_padding_ms: 0,
                silence_duration_ms: 10000,
                create_response: true,
                interrupt_response: false,
              },
            },
            output: { voice: 'aria', encoding: 'binary' },
          },
        },
      });
      expect(res.statusCode).toBe(200);
      const { session, expires_at } = res.json();
      expect(expires_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 598);
      expect(session.metadata).toEqual(metadata);
      expect(session.audio).toEqual({
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          transcription: { language: 'en-US', prompt: 'Ada Lovelace' },
          turn_detection: {
            type: 'server_vad',
            threshold: 0.8,
            prefix_padding_ms: 0,
            silence_duration_ms: 10000,
            end_of_turn: END_OF_TURN,
          },
          noise_reduction: null,
        },
        output: { voice: 'aria', encoding: 'binary' },
      });
    });

    it('accepts rate null, noise_reduction null and turn_detection null', async () => {
      const res = await create({
        session: { audio: { input: { format: { rate: null }, noise_reduction: null, turn_detection: null } } },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().session.audio.input).toMatchObject({
        format: { type: 'audio/pcm', rate: 24000 },
        turn_detection: null,
      });
    });

    it.each([1, 600])('accepts expires_after.seconds %i', async (seconds) => {
      const res = await create({ expires_after: { seconds } });
      expect(res.statusCode).toBe(200);
      expect(res.json().expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(seconds - 2);
      expect(res.json().expires_at - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(seconds);
    });
  });

  describe('realtime path', () => {
    it('always makes a transcription session on vendor-asr-streaming', async () => {
      const res = await create({}, REALTIME);
      expect(res.statusCode).toBe(200);
      expect(res.json().session).toMatchObject({
        object: 'realtime.transcription_session',
        type: 'transcription',
        model: 'vendor-asr-streaming',
        live_url: expect.stringMatching(/^ws:\/\/.+\/v1\/live\/sessions$/),
        audio: { input: { transcription: { language: 'auto', model: 'vendor-asr-streaming' } }, output: null },
      });
    });

    it('accepts what the openai SDK sends for a transcription session', async () => {
      const res = await create(
        {
          expires_after: { anchor: 'created_at', seconds: 120 },
          session: {
            type: 'transcription',
            audio: {
              input: {
                format: { type: 'audio/pcm', rate: 24000 },
                noise_reduction: { type: 'near_field' },
                transcription: { model: 'vendor-asr-streaming', language: 'en', prompt: 'names' },
                turn_detection: {
                  type: 'server_vad',
                  threshold: 0.5,
                  prefix_padding_ms: 300,
                  silence_duration_ms: 500,
                },
              },
            },
            include: ['item.input_audio_transcription.logprobs'],
          },
        },
        REALTIME,
      );
      expect(res.statusCode).toBe(200);
      expect(res.json().session.audio.input.transcription).toEqual({
        language: 'en',
        model: 'vendor-asr-streaming',
        prompt: 'names',
      });
    });

    it('works with the official openai SDK', async () => {
      const { default: OpenAI } = await import('openai');
      const client = new OpenAI({ apiKey: key, baseURL: `${t.baseUrl}/v1`, maxRetries: 0 });
      const secret = await client.realtime.clientSecrets.create({
        session: { type: 'transcription', audio: { input: { transcription: { language: 'en' } } } },
      });
      expect(secret.value).toMatch(/^ek_/);
      expect(secret.session).toMatchObject({ type: 'transcription', object: 'realtime.transcription_session' });
    });

    it.each([
      ['another model', { session: { model: 'vendor-voicechat' } }, 'session.model'],
      ['an unknown model', { session: { model: 'gpt-realtime' } }, 'session.model'],
      ['a live session', { session: { type: 'live' } }, 'session.type'],
      [
        'another transcription model',
        { session: { audio: { input: { transcription: { model: 'whisper-1' } } } } },
        'session.audio.input.transcription.model',
      ],
      ['audio output', { session: { audio: { output: { voice: 'aria' } } } }, 'session.audio.output'],
    ])('answers 400 invalid_parameter for %s', async (_name, body, param) => {
      expectError(await create(body, REALTIME), 400, 'invalid_parameter', param);
    });
  });

  describe('refusals', () => {
    it.each([
      ['an unknown model', { session: { model: 'gpt-4o' } }, 'session.model'],
      ['a type and model that disagree', { session: { type: 'live', model: 'vendor-asr-streaming' } }, 'session.model'],
      [
        'another transcription model',
        { session: { type: 'transcription', audio: { input: { transcription: { model: 'x' } } } } },
        'session.audio.input.transcription.model',
      ],
      [
        'another audio format',
        { session: { audio: { input: { format: { type: 'audio/pcmu' } } } } },
        'session.audio.input.format.type',
      ],
      [
        'another rate',
        { session: { audio: { input: { format: { rate: 16000 } } } } },
        'session.audio.input.format.rate',
      ],
      ['another voice', { session: { audio: { output: { voice: 'alloy' } } } }, 'session.audio.output.voice'],
    ])('400 invalid_parameter for %s', async (_name, body, param) => {
      expectError(await create(body), 400, 'invalid_parameter', param);
    });

    it('401 without an API key, before validation', async () => {
      const res = await t.app.inject({ method: 'POST', url: LIVE, payload: { nope: 1 } });
      expectError(res, 401, 'missing_api_key');
    });

    it.each([0, -1])('403 insufficient_credit at a balance of %i', async (micros) => {
      await setBalance(t, projectId, micros);
      expectError(await create(), 403, 'insufficient_credit');
      expect(await t.dataSource.query('SELECT id FROM sessions WHERE project_id = $1', [projectId])).toHaveLength(0);
    });

    it('503 capacity_exhausted with retry hints when the engine has no stream free', async () => {
      const check = jest
        .spyOn(t.app.get<CapacityGate>(CAPACITY_GATE), 'check')
        .mockReturnValue({ available: false, retryAfterMs: 2500 });
      try {
        const res = await create();
        expectError(res, 503, 'capacity_exhausted');
        expect(res.json().error.retry_after_ms).toBe(2500);
        expect(res.headers['retry-after']).toBe('3');
        expect(await t.dataSource.query('SELECT id FROM sessions WHERE project_id = $1', [projectId])).toHaveLength(0);
      } finally {
        check.mockRestore();
      }
      expect((await create()).statusCode).toBe(200);
    });
  });

  describe('validation (422)', () => {
    it.each<[string, unknown, (string | number)[], string]>([
      ['top level', { foo: 1 }, ['body', 'foo'], 'extra_forbidden'],
      ['expires_after', { expires_after: { seconds: 5, foo: 1 } }, ['body', 'expires_after', 'foo'], 'extra_forbidden'],
      ['session', { session: { foo: 1 } }, ['body', 'session', 'foo'], 'extra_forbidden'],
      ['session.audio', { session: { audio: { foo: 1 } } }, ['body', 'session', 'audio', 'foo'], 'extra_forbidden'],
      [
        'audio.input',
        { session: { audio: { input: { foo: 1 } } } },
        ['body', 'session', 'audio', 'input', 'foo'],
        'extra_forbidden',
      ],
      [
        'format',
        { session: { audio: { input: { format: { foo: 1 } } } } },
        ['body', 'session', 'audio', 'input', 'format', 'foo'],
        'extra_forbidden',
      ],
      [
        'transcription',
        { session: { audio: { input: { transcription: { delay: 'low' } } } } },
        ['body', 'session', 'audio', 'input', 'transcription', 'delay'],
        'extra_forbidden',
      ],
      [
        'turn_detection',
        { session: { audio: { input: { turn_detection: { eagerness: 'low' } } } } },
        ['body', 'session', 'audio', 'input', 'turn_detection', 'eagerness'],
        'extra_forbidden',
      ],
      [
        'noise_reduction',
        { session: { audio: { input: { noise_reduction: { foo: 1 } } } } },
        ['body', 'session', 'audio', 'input', 'noise_reduction', 'foo'],
        'extra_forbidden',
      ],
      [
        'audio.output',
        { session: { audio: { output: { speed: 1 } } } },
        ['body', 'session', 'audio', 'output', 'speed'],
        'extra_forbidden',
      ],
    ])('refuses an unknown property in %s at its own loc', async (_name, body, loc, type) => {
      expectIssue(await create(body), loc, type);
      expectIssue(await create(body, REALTIME), loc, type);
    });

    it.each<[string, unknown, (string | number)[], string]>([
      ['valueOf at the top', { valueOf: 1 }, ['body', 'valueOf'], 'extra_forbidden'],
      [
        'constructor in session',
        { session: { constructor: {} } },
        ['body', 'session', 'constructor'],
        'extra_forbidden',
      ],
      [
        'toString in turn_detection',
        { session: { audio: { input: { turn_detection: { toString: 'x' } } } } },
        ['body', 'session', 'audio', 'input', 'turn_detection', 'toString'],
        'extra_forbidden',
      ],
      ['a metadata key named toString', { metadata: { toString: 'x', ok: 'y' } }, ['body', 'metadata'], 'value_error'],
    ])('refuses a key named like a built-in object member: %s', async (_name, body, loc, type) => {
      expectIssue(await create(body), loc, type);
    });

    it('reports a reserved key beside the other problems of the body', async () => {
      const res = await create({ valueOf: 1, expires_after: { seconds: 0 }, metadata: { constructor: 'x' } });
      expectIssue(res, ['body', 'valueOf'], 'extra_forbidden');
      expectIssue(res, ['body', 'metadata'], 'value_error');
      expectIssue(res, ['body', 'expires_after', 'seconds'], 'greater_than_equal');
    });

    it.each<[string, unknown, (string | number)[], string]>([
      ['seconds 0', { expires_after: { seconds: 0 } }, ['body', 'expires_after', 'seconds'], 'greater_than_equal'],
      ['seconds 601', { expires_after: { seconds: 601 } }, ['body', 'expires_after', 'seconds'], 'less_than_equal'],
      ['seconds 1.5', { expires_after: { seconds: 1.5 } }, ['body', 'expires_after', 'seconds'], 'int_type'],
      ['seconds as text', { expires_after: { seconds: '60' } }, ['body', 'expires_after', 'seconds'], 'int_type'],
      ['seconds null', { expires_after: { seconds: null } }, ['body', 'expires_after', 'seconds'], 'int_type'],
      ['another anchor', { expires_after: { anchor: 'now' } }, ['body', 'expires_after', 'anchor'], 'literal_error'],
      ['expires_after not an object', { expires_after: 60 }, ['body', 'expires_after'], 'dict_type'],
      ['metadata not an object', { metadata: ['a'] }, ['body', 'metadata'], 'dict_type'],
      ['metadata null', { metadata: null }, ['body', 'metadata'], 'dict_type'],
      [
        '17 metadata keys',
        { metadata: Object.fromEntries([...Array(17)].map((_, i) => [`k${i}`, 'v'])) },
        ['body', 'metadata'],
        'too_long',
      ],
      ['a 65-character key', { metadata: { ['k'.repeat(65)]: 'v' } }, ['body', 'metadata'], 'string_too_long'],
      ['a 513-character value', { metadata: { k: 'v'.repeat(513) } }, ['body', 'metadata'], 'string_too_long'],
      ['an empty key', { metadata: { '': 'v' } }, ['body', 'metadata'], 'string_too_short'],
      ['a number value', { metadata: { k: 1 } }, ['body', 'metadata'], 'string_type'],
      ['a nested value', { metadata: { k: { a: 'b' } } }, ['body', 'metadata'], 'string_type'],
      ['session not an object', { session: 'live' }, ['body', 'session'], 'dict_type'],
      ['another type', { session: { type: 'speech' } }, ['body', 'session', 'type'], 'literal_error'],
      ['model not a string', { session: { model: 5 } }, ['body', 'session', 'model'], 'string_type'],
      ['an unknown include', { session: { include: ['x'] } }, ['body', 'session', 'include'], 'literal_error'],
      [
        'format type not a string',
        { session: { audio: { input: { format: { type: 1 } } } } },
        ['body', 'session', 'audio', 'input', 'format', 'type'],
        'string_type',
      ],
      [
        'rate not an integer',
        { session: { audio: { input: { format: { rate: 'x' } } } } },
        ['body', 'session', 'audio', 'input', 'format', 'rate'],
        'int_type',
      ],
      [
        'a 36-character language',
        { session: { audio: { input: { transcription: { language: 'e'.repeat(36) } } } } },
        ['body', 'session', 'audio', 'input', 'transcription', 'language'],
        'string_too_long',
      ],
      [
        'a malformed language',
        { session: { audio: { input: { transcription: { language: 'e!' } } } } },
        ['body', 'session', 'audio', 'input', 'transcription', 'language'],
        'string_pattern_mismatch',
      ],
      [
        'semantic VAD',
        { session: { audio: { input: { turn_detection: { type: 'semantic_vad' } } } } },
        ['body', 'session', 'audio', 'input', 'turn_detection', 'type'],
        'literal_error',
      ],
      [
        'threshold 2',
        { session: { audio: { input: { turn_detection: { threshold: 2 } } } } },
        ['body', 'session', 'audio', 'input', 'turn_detection', 'threshold'],
        'less_than_equal',
      ],
      [
        'silence 50 ms',
        { session: { audio: { input: { turn_detection: { silence_duration_ms: 50 } } } } },
        ['body', 'session', 'audio', 'input', 'turn_detection', 'silence_duration_ms'],
        'greater_than_equal',
      ],
      [
        'noise reduction type',
        { session: { audio: { input: { noise_reduction: { type: 'loud' } } } } },
        ['body', 'session', 'audio', 'input', 'noise_reduction', 'type'],
        'literal_error',
      ],
      [
        'another encoding',
        { session: { audio: { output: { encoding: 'mp3' } } } },
        ['body', 'session', 'audio', 'output', 'encoding'],
        'literal_error',
      ],
    ])('refuses %s', async (_name, body, loc, type) => {
      expectIssue(await create(body), loc, type);
    });

    it.each<[string, string, string]>([
      ['a missing body', '', 'missing'],
      ['malformed JSON', '{"session":', 'json_invalid'],
      ['an array', '[]', 'model_type'],
      ['a string', '"x"', 'model_type'],
    ])('refuses %s', async (_name, raw, type) => {
      expectIssue(await create(raw), ['body'], type);
    });
  });

  it('shows the limits in force in /v1/project', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/project', headers: { authorization: `Bearer ${key}` } });
    expect(res.json().limits).toMatchObject({
      concurrent_sessions: 6,
      requests_per_minute: 100000,
      max_session_seconds: 120,
      client_secret_ttl_default_seconds: 60,
      client_secret_ttl_max_seconds: 600,
    });
  });
});
