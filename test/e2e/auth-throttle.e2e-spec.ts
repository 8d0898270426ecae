import { SocketClient } from '../support/socket-client';
import { authStatements, statementsDuring } from '../support/statements';
import { databaseUrlOf } from './client-secrets-fixtures';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

/** Failed authentications are throttled per client address, across instances; good keys never are. */
describe.each(databaseTargets())('failed-authentication throttle on %s', (target) => {
  const LIMIT = 6;
  let a: TestApp;
  let b: TestApp;
  let key: string;

  beforeAll(async () => {
    const env = { AUTH_FAILURES_PER_MINUTE: String(LIMIT), RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' };
    a = await startTestApp(target, { env });
    // A second instance on the same database: the bucket must be theirs together.
    b = await startTestApp(target, { env, databaseUrl: databaseUrlOf(a) });
    ({ apiKey: key } = await a.newProject());
  });
  afterAll(async () => {
    await b?.app.close();
    await a?.close();
  });

  const models = (t: TestApp, authorization: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization }, remoteAddress });

  it('turns the failures past the limit into 429 with retry_after_ms, on every instance, and spares good keys', async () => {
    // The key is in use on both instances (a NAT's good client): each has served it before the address is throttled.
    for (const t of [a, b]) expect((await models(t, `Bearer ${key}`, '10.0.0.9')).statusCode).toBe(200);
    const codes: number[] = [];
    for (let i = 0; i < LIMIT; i++)
      codes.push((await models(i % 2 ? a : b, `Bearer wk_bad${i}`, '10.0.0.1')).statusCode);
    expect(codes).toEqual(Array(LIMIT).fill(401));

    const throttled = await models(a, 'Bearer wk_badagain', '10.0.0.1');
    expect(throttled.statusCode).toBe(429);
    const body = throttled.json();
    expect(body.error).toMatchObject({ code: 'rate_limit_exceeded', request_id: throttled.headers['x-request-id'] });
    // One failure comes back every 60/LIMIT s.
    expect(body.error.retry_after_ms).toBeGreaterThan(0);
    expect(body.error.retry_after_ms).toBeLessThanOrEqual(60_000 / LIMIT);
    expect(throttled.headers['retry-after']).toBeDefined();
    expect((await models(b, 'Bearer wk_badagain', '10.0.0.1')).statusCode).toBe(429);

    // A good key from the same address is served, and other addresses still get their own 401.
    for (const t of [a, b]) expect((await models(t, `Bearer ${key}`, '10.0.0.1')).statusCode).toBe(200);
    expect((await models(a, 'Bearer wk_bad', '10.0.0.2')).statusCode).toBe(401);
  });

  it('answers a throttled client from memory: no statement, however many requests, in any place', async () => {
    const address = '10.0.0.4';
    // Before the limit, each refusal costs the key's lookup and the failure's record.
    const before = await statementsDuring(async () => {
      for (let i = 0; i < LIMIT; i++) expect((await models(a, `Bearer wk_before${i}`, address)).statusCode).toBe(401);
    });
    expect(authStatements(before)).toHaveLength(2 * LIMIT);
    // The refusal that finds the bucket empty still asks the database: it is what tells this instance.
    expect((await models(a, 'Bearer wk_over', address)).statusCode).toBe(429);

    const throttled = await statementsDuring(async () => {
      for (let i = 0; i < 50; i++) {
        const answer = await models(a, `Bearer wk_throttled${i}`, address);
        expect(answer.statusCode).toBe(429);
        expect(answer.json().error.retry_after_ms).toBeGreaterThan(0);
      }
      expect((await models(a, 'Bearer not-even-a-key', address)).statusCode).toBe(429);
      const post = await a.app.inject({
        method: 'POST',
        url: '/v1/live/client_secrets',
        headers: { authorization: 'Bearer wk_nope', 'content-type': 'application/json' },
        payload: '{}',
        remoteAddress: address,
      });
      expect(post.statusCode).toBe(429);
    });
    expect(authStatements(throttled)).toEqual([]);
  });

  it('refuses a throttled socket before its secret or key costs a statement', async () => {
    // Sockets come from 127.0.0.1 through a real connection; a fresh instance, so the bucket is this test's.
    const c = await startTestApp(target, { env: { AUTH_FAILURES_PER_MINUTE: '2' }, databaseUrl: databaseUrlOf(a) });
    try {
      const ws = c.baseUrl.replace('http', 'ws');
      await c.dataSource.query('DELETE FROM auth_failures');
      const before = await statementsDuring(async () => {
        for (let i = 0; i < 3; i++) await SocketClient.refusal(`${ws}/v1/live/sessions?token=ek_before${i}`);
      });
      expect(authStatements(before).length).toBeGreaterThanOrEqual(3);
      const throttled = await statementsDuring(async () => {
        for (const path of ['/v1/live/sessions?token=ek_after', '/v1/listen?encoding=linear16&sample_rate=24000']) {
          const refused = await SocketClient.refusal(`${ws}${path}`, {
            headers: path.startsWith('/v1/listen') ? { authorization: 'Bearer wk_after' } : {},
          });
          expect(refused.status).toBe(429);
        }
      });
      expect(authStatements(throttled)).toEqual([]);
    } finally {
      await c.app.close();
      await a.dataSource.query('DELETE FROM auth_failures'); // 127.0.0.1's bucket, for the next test
    }
  });

  it('counts a bad key on the client-secret route (malformed body included) and on socket handshakes', async () => {
    const post = () =>
      a.app.inject({
        method: 'POST',
        url: '/v1/live/client_secrets',
        headers: { authorization: 'Bearer wk_nope', 'content-type': 'application/json' },
        payload: '{',
        remoteAddress: '10.0.0.3',
      });
    for (let i = 0; i < LIMIT; i++) expect((await post()).statusCode).toBe(401);
    expect((await post()).statusCode).toBe(429);

    // Sockets come from 127.0.0.1 through a real connection.
    const ws = `${b.baseUrl.replace('http', 'ws')}`;
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      const path = ['/v1/live/sessions', '/v1/listen?encoding=linear16&sample_rate=24000'][i % 2];
      statuses.push(
        (await SocketClient.refusal(`${ws}${path}`, { headers: { authorization: `Bearer ek_nope${i}` } })).status,
      );
    }
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
    const refused = await SocketClient.refusal(`${ws}/v1/live/sessions?token=ek_nope`);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', retry_after_ms: expect.any(Number) });
    expect(statuses[LIMIT]).toBe(429);
  });
});
