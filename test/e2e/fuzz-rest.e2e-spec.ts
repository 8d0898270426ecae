import fc from 'fast-check';
import {
  fuzzParameters,
  headerValue,
  queryString,
  secretRequestBody,
  trickyJson,
  trickyString,
  urlPart,
} from '../support/fuzz';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Every REST endpoint's body, query and headers, fuzzed through app.inject: never a 500, never a
 * hang, and every refusal in the ErrorEnvelope (with the answer's request id) or the 422 shape.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const ANSWER_WITHIN_MS = 10_000;

const ROUTES: { method: 'GET' | 'POST' | 'DELETE' | 'PUT'; path: (id: string) => string }[] = [
  { method: 'GET', path: () => '/v1/models' },
  { method: 'GET', path: () => '/v1/project' },
  { method: 'POST', path: () => '/v1/live/client_secrets' },
  { method: 'POST', path: () => '/v1/realtime/client_secrets' },
  { method: 'GET', path: () => '/v1/sessions' },
  { method: 'GET', path: (id) => `/v1/sessions/${id}` },
  { method: 'DELETE', path: (id) => `/v1/sessions/${id}` },
  { method: 'GET', path: () => '/v1/usage' },
  { method: 'GET', path: () => '/v1/usage/export' },
  { method: 'GET', path: () => '/v1/usage/normalized-meter-events' },
  { method: 'GET', path: () => '/v1/openapi.json' },
  { method: 'GET', path: () => '/healthz' },
  { method: 'GET', path: () => '/readyz' },
  { method: 'PUT', path: () => '/v1/models' },
];

function expectWellFormedRefusal(status: number, body: string, requestId: unknown, label: string): void {
  expect({ label, status }).toEqual({ label, status: expect.any(Number) });
  if (status < 400) return;
  expect({ label, status: status < 500 ? 'client error' : status }).toEqual({ label, status: 'client error' });
  const parsed = JSON.parse(body) as Record<string, any>;
  if (status === 422 && 'detail' in parsed) {
    expect(Object.keys(parsed)).toEqual(['detail']);
    for (const issue of parsed.detail) expect(Object.keys(issue).sort()).toEqual(['loc', 'msg', 'type']);
    return;
  }
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message', 'param', 'request_id', 'retry_after_ms']);
  expect(parsed.error.request_id).toBe(requestId);
}

describe.each(databaseTargets())('REST fuzzing on %s', (target) => {
  let t: TestApp;
  let key: string;
  let sessionId: string;

  beforeAll(async () => {
    t = await startTestApp(target, {
      env: {
        RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
        CONCURRENT_SESSIONS_LIMIT: '100000',
        ENGINE_MAX_STREAMS: '1000',
      },
    });
    ({ apiKey: key } = await t.newProject());
    const made = await t.app.inject({
      method: 'POST',
      url: '/v1/live/client_secrets',
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    sessionId = made.json().session.id;
  });
  afterAll(() => t?.close());

  it(`answers ${RUNS} fuzzed requests with no 500, no hang and refusals in the documented shapes`, async () => {
    const authorization = fc.oneof(
      { weight: 6, arbitrary: fc.constant('good') },
      fc.constant('none'),
      headerValue.map((v) => `raw:${v}`),
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: secretRequestBody.map((b) => JSON.stringify(b)) },
      trickyJson.map((b) => JSON.stringify(b)),
      fc.string(),
      fc.integer({ min: 30, max: 5000 }).map((d) => '{"a":'.repeat(d) + '1' + '}'.repeat(d)),
      fc.constantFrom('', '{', 'null', '[]', '"x"', '{"metadata":{"a":"\\u0000"}}', '{"metadata":{"a":"\\ud800"}}'),
    );
    const request = fc.record({
      route: fc.constantFrom(...ROUTES),
      id: fc.oneof(
        fc.constant(null),
        trickyString.map(urlPart),
        fc.constantFrom('%00', '%ED%A0%80', '%', '%zz', 'sess_' + 'a'.repeat(300)),
      ),
      query: queryString,
      authorization,
      contentType: fc.oneof(
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/xml',
          'multipart/form-data',
        ),
        headerValue,
      ),
      body: fc.option(body, { nil: undefined }),
      extraHeaders: fc.dictionary(
        fc.constantFrom('x-request-id', 'x-api-key', 'x-forwarded-proto', 'host', 'accept', 'x-other'),
        headerValue,
        {
          maxKeys: 3,
        },
      ),
    });

    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = { ...r.extraHeaders };
        if (r.authorization === 'good') headers.authorization = `Bearer ${key}`;
        else if (r.authorization.startsWith('raw:')) headers.authorization = r.authorization.slice(4);
        if (r.body !== undefined) headers['content-type'] = r.contentType;
        const url = r.route.path(r.id ?? sessionId) + r.query;
        const label = `${r.route.method} ${url}`;
        let timer: NodeJS.Timeout | undefined;
        const res = await Promise.race([
          t.app.inject({ method: r.route.method, url, headers, payload: r.body }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms: ${label}`)),
              ANSWER_WITHIN_MS,
            );
          }),
        ]).finally(() => clearTimeout(timer));
        expectWellFormedRefusal(res.statusCode, res.body, res.headers['x-request-id'], label);
      }),
      fuzzParameters(RUNS),
    );
    // An unexpected failure anywhere (a 500 answered, a crash caught) is logged at error level.
    expect(t.logs.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
  }, 600_000);
});
