import { usdToMicros } from '../../src/platform/money';
import { ProjectControlsService } from '../../src/modules/projects/project-controls.service';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const START = { type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } };

/**
 * An operator's per-project settings are what admission and the request rate enforce, on every path:
 * REST requests, client secrets (checked in the admission statement), their redemption, and sockets
 * opened with a key.
 */
describe.each(databaseTargets())('per-project limits and credit on %s', (target) => {
  let t: TestApp;
  let controls: ProjectControlsService;
  let wsUrl: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { CONCURRENT_SESSIONS_LIMIT: '4', RATE_LIMIT_REQUESTS_PER_MINUTE: '600' } });
    controls = t.app.get(ProjectControlsService);
    wsUrl = `${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`;
  });
  afterAll(() => t?.close());

  const call = (apiKey: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${apiKey}` } });
  const secret = (apiKey: string) => call(apiKey, 'POST', '/v1/live/client_secrets', {});

  it("admits up to the project's own concurrency limit, and the default again once it is lifted", async () => {
    const { projectId, apiKey } = await t.newProject();
    await controls.setLimits(projectId, { concurrentSessions: 2 }, 'test');
    expect((await call(apiKey, 'GET', '/v1/project')).json().limits.concurrent_sessions).toBe(2);
    expect((await secret(apiKey)).statusCode).toBe(200);
    expect((await secret(apiKey)).statusCode).toBe(200);
    const third = await secret(apiKey);
    expect(third.statusCode).toBe(429);
    expect(third.json().error).toMatchObject({
      code: 'concurrency_limit_exceeded',
      message: expect.stringContaining('limit 2'),
    });
    const byKey = await SocketClient.open(wsUrl, { headers: { authorization: `Bearer ${apiKey}` } });
    byKey.send(START);
    expect((await byKey.waitFor('error')).error.code).toBe('concurrency_limit_exceeded');
    byKey.ws.close();

    await controls.setLimits(projectId, { concurrentSessions: null }, 'test');
    expect((await call(apiKey, 'GET', '/v1/project')).json().limits.concurrent_sessions).toBe(4);
    expect((await secret(apiKey)).statusCode).toBe(200);
  });

  it("limits each key to the project's own request rate, on plain requests and on client secrets", async () => {
    const { projectId, apiKey } = await t.newProject();
    const other = await t.newProject();
    await controls.setLimits(projectId, { requestsPerMinute: 3 }, 'test');
    const first = await call(apiKey, 'GET', '/v1/models');
    expect(first.headers['x-ratelimit-limit-requests']).toBe('3');
    expect((await secret(apiKey)).statusCode).toBe(200);
    expect((await call(apiKey, 'GET', '/v1/models')).statusCode).toBe(200);
    const over = await secret(apiKey);
    expect(over.statusCode).toBe(429);
    expect(over.json().error).toMatchObject({ code: 'rate_limit_exceeded', retry_after_ms: expect.any(Number) });
    expect((await call(apiKey, 'GET', '/v1/models')).json().error.code).toBe('rate_limit_exceeded');
    // Another project keeps the configured rate.
    const untouched = await call(other.apiKey, 'GET', '/v1/models');
    expect(untouched.headers['x-ratelimit-limit-requests']).toBe('600');
    expect((await call(other.apiKey, 'GET', '/v1/project')).json().limits.requests_per_minute).toBe(600);
  });

  it('refuses new sessions at the credit limit, never without one, and checks it again on redemption', async () => {
    const { projectId, apiKey } = await t.newProject();
    await controls.addCredit(projectId, -usdToMicros('10'), 'test');
    expect((await secret(apiKey)).json().error.code).toBe('insufficient_credit');

    await controls.setCreditLimit(projectId, null, 'test');
    await controls.addCredit(projectId, -usdToMicros('5'), 'test');
    const project = (await call(apiKey, 'GET', '/v1/project')).json();
    expect(project).toMatchObject({ balance_usd: '-5.000000', credit_limit_usd: null });
    const issued = await secret(apiKey);
    expect(issued.statusCode).toBe(200);
    const byKey = await SocketClient.open(wsUrl, { headers: { authorization: `Bearer ${apiKey}` } });
    byKey.send(START);
    await byKey.waitFor('session.started');
    byKey.send({ type: 'session.close' });
    await byKey.waitFor('session.closed');

    await controls.setCreditLimit(projectId, usdToMicros('5'), 'test');
    expect((await secret(apiKey)).json().error.code).toBe('insufficient_credit');
    const redeemed = await SocketClient.refusal(`${wsUrl}?token=${encodeURIComponent(issued.json().value)}`);
    expect(redeemed).toMatchObject({ status: 403, body: { error: { code: 'insufficient_credit' } } });

    await controls.setCreditLimit(projectId, usdToMicros('5.01'), 'test');
    expect((await secret(apiKey)).statusCode).toBe(200);
  });
});
