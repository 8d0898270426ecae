import { AppError } from '../../platform/errors/app-error';
import { databaseTargets } from '../../../test/support/test-database';
import { MediumModule, mediumModule } from '../../../test/support/medium';
import { insertProject } from '../../../test/support/medium-fixtures';
import { AuthModule } from './auth.module';
import { AuthRequest, AuthService } from './auth.service';
import { FailedAuthThrottle } from './failed-auth.throttle';

/**
 * The auth module on a real database: a key found by its SHA-256 and a token taken from its bucket in
 * one statement (continuum_take_request_token()), and failed authentications counted per address
 * (continuum_record_auth_failure()).
 */
describe.each(databaseTargets())('auth module on %s', (target) => {
  let m: MediumModule;
  let auth: AuthService;
  let throttle: FailedAuthThrottle;

  beforeAll(async () => {
    m = await mediumModule(target, {
      imports: [AuthModule],
      env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '3', AUTH_FAILURES_PER_MINUTE: '2' },
    });
    auth = m.get(AuthService);
    throttle = m.get(FailedAuthThrottle);
  });
  afterAll(() => m?.close());

  const request = (authorization: string, url = '/v1/models'): AuthRequest => ({ headers: { authorization }, url });

  it("admits a key until its bucket is empty, then refuses with when to retry; a project's own rate wins", async () => {
    const { projectId, keyId, apiKey } = await insertProject(m.dataSource);
    const answers: { remaining?: number; limit?: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const req = request(`Bearer ${apiKey}`);
      expect(await auth.authenticateApiKey(req)).toEqual({ kind: 'api_key', projectId, apiKeyId: keyId });
      answers.push({ remaining: req.rateLimit?.remaining, limit: req.rateLimit?.limit });
    }
    expect(answers).toEqual([
      { remaining: 2, limit: 3 },
      { remaining: 1, limit: 3 },
      { remaining: 0, limit: 3 },
    ]);
    const refused = await auth.authenticateApiKey(request(`Bearer ${apiKey}`)).catch((e: AppError) => e);
    expect(refused).toMatchObject({ code: 'rate_limit_exceeded', retryAfterMs: expect.any(Number) });
    expect((refused as AppError).retryAfterMs).toBeGreaterThan(0);
    expect((refused as AppError).retryAfterMs).toBeLessThanOrEqual(20_000);

    const own = await insertProject(m.dataSource, { requestsPerMinute: 100 });
    const req = request(`Bearer ${own.apiKey}`);
    await auth.authenticateApiKey(req);
    expect(req.rateLimit).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('refuses revoked, unknown and misplaced credentials with their own codes', async () => {
    const { keyId, apiKey } = await insertProject(m.dataSource);
    const code = (req: AuthRequest) =>
      auth.authenticateApiKey(req).then(
        () => 'accepted',
        (e: AppError) => e.code,
      );
    expect(await code(request(`Bearer ${apiKey}`))).toBe('accepted');
    await m.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId]);
    expect(await code(request(`Bearer ${apiKey}`))).toBe('key_revoked');
    expect(await code(request(`Bearer ${apiKey.slice(0, -1)}x`))).toBe('invalid_api_key');
    expect(await code(request(`Bearer ${apiKey}`, `/v1/models?api_key=${apiKey}`))).toBe('api_key_in_query');
    expect(await code({ headers: {}, url: '/v1/models' })).toBe('missing_api_key');
  });

  it('turns the failures of one address past its budget into 429s, and leaves other refusals alone', async () => {
    const unauthorized = new AppError('invalid_api_key', 'The API key is not valid');
    const judged = [];
    for (let i = 0; i < 3; i++) judged.push(((await throttle.judge(unauthorized, '203.0.113.7')) as AppError).code);
    expect(judged).toEqual(['invalid_api_key', 'invalid_api_key', 'rate_limit_exceeded']);
    expect(((await throttle.judge(unauthorized, '203.0.113.8')) as AppError).code).toBe('invalid_api_key');

    const notFound = new AppError('not_found', 'No such session');
    expect(await throttle.judge(notFound, '203.0.113.9')).toBe(notFound);
    const rows: { client_address: string }[] = await m.dataSource.query(
      'SELECT client_address FROM auth_failures ORDER BY client_address',
    );
    expect(rows.map((r) => r.client_address)).toEqual(['203.0.113.7', '203.0.113.8']);
  });
});
