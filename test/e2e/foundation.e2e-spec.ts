import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

describe.each(databaseTargets())('foundation on %s', (target) => {
  let t: TestApp;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '1000' } });
    ({ apiKey: key, keyId } = await t.newProject());
  });
  afterAll(() => t?.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: path, headers });

  describe('authentication', () => {
    it.each([
      ['Bearer', (k: string) => ({ authorization: `Bearer ${k}` })],
      ['Token', (k: string) => ({ authorization: `Token ${k}` })],
      ['lower-case scheme', (k: string) => ({ authorization: `bearer ${k}` })],
      ['X-API-Key', (k: string) => ({ 'x-api-key': k })],
    ])('accepts the key by %s', async (_name, headers) => {
      const res = await get('/v1/models', headers(key));
      expect(res.statusCode).toBe(200);
    });

    it.each([
      ['no credential', {}, 'missing_api_key'],
      ['an unknown key', { authorization: 'Bearer wk_unknownunknownunknown' }, 'invalid_api_key'],
      ['a key without the wk_ prefix', { authorization: 'Bearer sk-something' }, 'invalid_api_key'],
      ['another scheme', { authorization: 'Basic abc' }, 'invalid_api_key'],
    ])('refuses %s with 401', async (_name, headers, code) => {
      const res = await get('/v1/models', headers as Record<string, string>);
      expect(res.statusCode).toBe(401);
      const body = res.json();
      expect(body).toEqual({
        error: {
          code,
          message: expect.any(String),
          param: null,
          request_id: res.headers['x-request-id'],
          retry_after_ms: null,
        },
      });
    });

    it('refuses a client secret on REST with 403 permission_denied', async () => {
      const res = await get('/v1/models', { authorization: 'Bearer ek_abcdefabcdefabcdef' });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('permission_denied');
    });

    it('refuses an API key in the query string even with a valid header', async () => {
      const res = await get(`/v1/models?api_key=${key}`, { authorization: `Bearer ${key}` });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('api_key_in_query');
      const other = await get(`/v1/models?anything=${key}`, { authorization: `Bearer ${key}` });
      expect(other.json().error.code).toBe('api_key_in_query');
    });

    it('refuses a revoked key with key_revoked', async () => {
      const { apiKey, keyId: id } = await t.newProject('revoked');
      expect((await get('/v1/models', { authorization: `Bearer ${apiKey}` })).statusCode).toBe(200);
      await t.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
      const res = await get('/v1/models', { authorization: `Bearer ${apiKey}` });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('key_revoked');
    });

    it('stores only the SHA-256 of a key', async () => {
      const rows: { key_hash: string }[] = await t.dataSource.query('SELECT key_hash FROM api_keys WHERE id = $1', [
        keyId,
      ]);
      expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
      const dump = JSON.stringify(await t.dataSource.query('SELECT * FROM api_keys'));
      expect(dump).not.toContain(key);
    });

    it('keeps health, readiness, metrics and the OpenAPI document public', async () => {
      for (const path of ['/healthz', '/readyz', '/metrics', '/v1/openapi.json']) {
        expect((await get(path)).statusCode).toBe(200);
      }
    });
  });

  describe('errors', () => {
    it('answers an unknown route with a 404 ErrorEnvelope', async () => {
      const res = await get('/v1/nowhere', { authorization: `Bearer ${key}` });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'not_found', request_id: res.headers['x-request-id'] });
    });

    it('echoes a well-formed x-request-id and makes one otherwise', async () => {
      const echoed = await get('/healthz', { 'x-request-id': 'trace-123' });
      expect(echoed.headers['x-request-id']).toBe('trace-123');
      const made = await get('/healthz', { 'x-request-id': 'bad id with spaces' });
      expect(made.headers['x-request-id']).toMatch(/^req_/);
    });
  });

  describe('models and project', () => {
    it('lists both models with their audio facts, voices, limit and price', async () => {
      const res = await get('/v1/models', { authorization: `Bearer ${key}` });
      const body = res.json();
      expect(body.object).toBe('list');
      expect(body.data.map((m: { id: string }) => m.id).sort()).toEqual(['vendor-asr-streaming', 'vendor-voicechat']);
      const chat = body.data.find((m: { id: string }) => m.id === 'vendor-voicechat');
      expect(chat).toMatchObject({
        object: 'model',
        type: 'live',
        voices: ['aria'],
        max_session_seconds: 120,
        audio: { format: 'pcm16', sample_rate: 24000, frame_ms: 80 },
        price: { usd_per_minute: expect.stringMatching(/^\d+\.\d{6}$/) },
        capacity: { streams_in_use: 0, streams_max: 8 },
      });
      expect(body.data.find((m: { id: string }) => m.id === 'vendor-asr-streaming')).toMatchObject({
        type: 'transcription',
        voices: [],
      });
    });

    it('shows the project with its 10 USD starting credit and limits', async () => {
      const res = await get('/v1/project', { 'x-api-key': key });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        object: 'project',
        balance_usd: '10.000000',
        limits: {
          concurrent_sessions: 6,
          max_session_seconds: 120,
          client_secret_ttl_default_seconds: 60,
          client_secret_ttl_max_seconds: 600,
        },
        created_at: expect.any(Number),
      });
    });
  });

  describe('operations', () => {
    it('reports readiness and Prometheus metrics by route and status', async () => {
      expect((await get('/readyz')).json()).toEqual({ status: 'ok', database: 'up' });
      await get('/v1/models', { authorization: `Bearer ${key}` });
      const metrics = (await get('/metrics')).body;
      expect(metrics).toMatch(/http_requests_total\{method="GET",route="\/v1\/models",status="200"\} \d+/);
      expect(metrics).toContain('http_request_duration_seconds_bucket');
    });

    it('serves Swagger UI at /docs', async () => {
      const res = await get('/docs');
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('swagger');
    });

    it('never writes a key to the log', async () => {
      await get('/v1/models', { authorization: `Bearer ${key}` });
      await get(`/v1/models?token=${key}`, { 'x-api-key': key });
      const all = t.logs.join('');
      expect(all).toContain('/v1/models');
      expect(all).not.toContain(key);
      expect(all).not.toContain(key.slice(3));
    });
  });
});

describe.each(databaseTargets())('request rate limit on %s', (target) => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('answers 429 rate_limit_exceeded with retry hints once the bucket is empty', async () => {
    t = await startTestApp(target, { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '3' } });
    const { apiKey } = await t.newProject();
    const call = () =>
      t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${apiKey}` } });
    const answers = [await call(), await call(), await call(), await call()];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers[0].headers['x-ratelimit-limit-requests']).toBe('3');
    expect(answers[0].headers['x-ratelimit-remaining-requests']).toBe('2');
    const refused = answers[3];
    expect(refused.json().error).toMatchObject({ code: 'rate_limit_exceeded', retry_after_ms: expect.any(Number) });
    expect(refused.json().error.retry_after_ms).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
  });
});
