import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/** Input that used to be a 500 (or a bare Fastify answer) is a 4xx in the API's own shapes. */
describe.each(databaseTargets())('hostile input on %s', (target) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(target, {
      env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000', CONCURRENT_SESSIONS_LIMIT: '100' },
    });
    ({ apiKey: key } = await t.newProject());
  });
  afterAll(() => t?.close());

  const post = (payload: string, authorization = `Bearer ${key}`, contentType = 'application/json') =>
    t.app.inject({
      method: 'POST',
      url: '/v1/live/client_secrets',
      headers: { authorization, 'content-type': contentType },
      payload,
    });
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
  const expectEnvelope = (
    res: { statusCode: number; json: () => any; headers: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toEqual({
      code,
      message: expect.any(String),
      param: body.error.param === null ? null : expect.any(String),
      request_id: res.headers['x-request-id'],
      retry_after_ms: null,
    });
  };

  it('refuses JSON nested deeper than 32 levels with 400 invalid_request, whatever the depth', async () => {
    for (const depth of [33, 1000, 50_000]) {
      const body = '{"metadata":'.repeat(depth) + '{}' + '}'.repeat(depth);
      expectEnvelope(await post(body), 400, 'invalid_request');
    }
    expect((await post('{"metadata":{"a":"b"}}')).statusCode).toBe(200);
  });

  it.each([
    ['a NUL in a metadata value', '{"metadata":{"a":"x\\u0000y"}}', ['body', 'metadata', 'a']],
    ['a lone surrogate in a metadata value', '{"metadata":{"a":"\\ud800"}}', ['body', 'metadata', 'a']],
    ['a lone low surrogate in a key', '{"metadata":{"\\udc00":"v"}}', ['body', 'metadata']],
    ['a NUL in a model name', '{"session":{"model":"vendor\\u0000"}}', ['body', 'session', 'model']],
  ])('refuses %s with a 422 at its loc', async (_name, body, loc) => {
    const res = await post(body);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc, type: 'string_unicode' });
  });

  it('never lets a bad value fail the other admissions of its batch', async () => {
    const bodies = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0 ? `{"metadata":{"n":"${i}\\u0000"}}` : `{"metadata":{"n":"${i}"}}`,
    );
    const statuses = (await Promise.all(bodies.map((b) => post(b)))).map((r) => r.statusCode);
    expect(statuses).toEqual(bodies.map((_, i) => (i % 3 === 0 ? 422 : 200)));
  });

  it.each(['/v1/sessions/sess_%00', '/v1/sessions/sess_%F0%9F%98%80', '/v1/sessions/sess_a%20b'])(
    'answers GET and DELETE %s with 404 not_found',
    async (url) => {
      expectEnvelope(await get(url), 404, 'not_found');
      const del = await t.app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${key}` } });
      expectEnvelope(del, 404, 'not_found');
    },
  );

  it('answers a URL the router cannot decode with a 400 envelope', async () => {
    expectEnvelope(await get('/v1/sessions/sess_%ED%A0%80'), 400, 'invalid_request');
  });

  it.each([
    '/v1/sessions?from=1e20',
    '/v1/sessions?to=99999999999999999',
    '/v1/sessions?from=253402300801',
    '/v1/sessions?limit=1e1',
    '/v1/sessions?from=-1',
    '/v1/usage?from=1e20',
    '/v1/usage/export?to=99999999999999999',
    '/v1/usage/normalized-meter-events?from=253402300801',
  ])('refuses %s with a 422', async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc[0]).toBe('query');
  });

  it('checks the key before reading the body: 401 for a bad key with a malformed, deep or unsupported body', async () => {
    for (const [body, type] of [
      ['{', 'application/json'],
      ['', 'application/json'],
      ['{"a":'.repeat(50) + '1' + '}'.repeat(50), 'application/json'],
      ['<x/>', 'application/xml'],
    ]) {
      expectEnvelope(await post(body, 'Bearer wk_nope', type), 401, 'invalid_api_key');
      expect((await post(body, `Bearer ${key}`, type)).statusCode).not.toBe(401);
    }
  });

  it('answers an unsupported media type with a 415 envelope', async () => {
    expectEnvelope(await post('<x/>', `Bearer ${key}`, 'application/xml'), 415, 'unsupported_media_type');
  });

  it('answers a body over 1 MiB with a 413 envelope', async () => {
    expectEnvelope(await post(JSON.stringify({ metadata: { a: 'x'.repeat(1_100_000) } })), 413, 'payload_too_large');
  });

  const raw = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(t.baseUrl);
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.on('data', (c) => (answer += c.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  const envelopeOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

  it('answers headers too large with a 431 envelope carrying a request_id', async () => {
    const answer = await new Promise<{ status: number; body: string; id: unknown }>((resolve, reject) => {
      const req = httpRequest(`${t.baseUrl}/v1/models`, { headers: { 'x-big': 'x'.repeat(100_000) } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, id: res.headers['x-request-id'] }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'headers_too_large', request_id: answer.id });
  });

  it('answers a malformed HTTP request with a 400 envelope', async () => {
    const answer = await raw('GET /v1/models HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n');
    expect(answer.startsWith('HTTP/1.1 400')).toBe(true);
    expect(envelopeOf(answer).error).toMatchObject({
      code: 'invalid_request',
      request_id: expect.stringMatching(/^req_/),
    });
  });
});
