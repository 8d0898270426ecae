/**
 * The secret routes check the API key inside the admission statement
 * (@Authenticated({ checksKeyItself: true })). They must still answer exactly as every other route: the key first, its rate-limit headers always, and nothing
 * admitted for a key that is unknown, revoked or out of tokens.
 */
import { ClientSecretsService } from '../../src/modules/client-secrets/client-secrets.service';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { createSecret, expectError, LIVE, REALTIME } from './client-secrets-fixtures';

const INVALID_BODY = { expires_after: { seconds: 0 }, unknown: true };

describe.each(databaseTargets())('API keys on the client-secret routes on %s', (target) => {
  let t: TestApp;
  afterAll(() => t?.close());
  beforeAll(async () => {
    t = await startTestApp(target, { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '3' } });
  });

  const sessionCount = async (projectId: string) =>
    Number((await t.dataSource.query('SELECT count(*) AS n FROM sessions WHERE project_id = $1', [projectId]))[0].n);
  const tokensLeft = async (keyId: string) =>
    Number((await t.dataSource.query('SELECT rl_tokens FROM api_keys WHERE id = $1', [keyId]))[0].rl_tokens);

  it.each([
    ['an unknown key', 'wk_unknownunknownunknown', 401, 'invalid_api_key'],
    ['a client secret', 'ek_abcdefabcdefabcdef', 403, 'permission_denied'],
  ])('refuses %s before looking at the body', async (_name, credential, status, code) => {
    for (const path of [LIVE, REALTIME]) {
      expectError(await createSecret(t, credential, INVALID_BODY, { path }), status, code);
      expectError(await createSecret(t, credential, {}, { path }), status, code);
    }
  });

  it('refuses a request with no key, or a key in the query string', async () => {
    const { apiKey } = await t.newProject();
    const bare = await t.app.inject({ method: 'POST', url: LIVE, payload: {} });
    expectError(bare, 401, 'missing_api_key');
    expectError(await createSecret(t, apiKey, {}, { path: `${LIVE}?api_key=${apiKey}` }), 401, 'api_key_in_query');
  });

  it('refuses a revoked key, whatever the body, and admits nothing', async () => {
    const { apiKey, keyId, projectId } = await t.newProject();
    await t.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId]);
    expectError(await createSecret(t, apiKey, {}), 401, 'key_revoked');
    expectError(await createSecret(t, apiKey, INVALID_BODY), 401, 'key_revoked');
    expect(await sessionCount(projectId)).toBe(0);
  });

  it('takes a token for a 422 and says so in the headers', async () => {
    const { apiKey, keyId } = await t.newProject();
    const res = await createSecret(t, apiKey, INVALID_BODY);
    expect(res.statusCode).toBe(422);
    expect(res.headers['x-ratelimit-limit-requests']).toBe('3');
    expect(res.headers['x-ratelimit-remaining-requests']).toBe('2');
    expect(await tokensLeft(keyId)).toBeLessThan(2.1);
  });

  it('takes one token per secret, and refuses the fourth within a minute without admitting it', async () => {
    const { apiKey, projectId } = await t.newProject();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await createSecret(t, apiKey, {}));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining-requests'])).toEqual(['2', '1', '0', '0']);
    const refused = answers[3];
    expectError(refused, 429, 'rate_limit_exceeded');
    expect(refused.json().error.retry_after_ms).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await sessionCount(projectId)).toBe(3);
    // An empty bucket refuses an invalid body with 429 too: the key is answered for first.
    expectError(await createSecret(t, apiKey, INVALID_BODY), 429, 'rate_limit_exceeded');
  });

  it('answers an error raised before the statement (an unservable model) only after the key', async () => {
    const { apiKey, keyId } = await t.newProject();
    const body = { session: { type: 'transcription', model: 'vendor-voicechat' } };
    expectError(await createSecret(t, 'wk_unknownunknownunknown', body, { path: REALTIME }), 401, 'invalid_api_key');
    const res = await createSecret(t, apiKey, body, { path: REALTIME });
    expectError(res, 400, 'invalid_parameter');
    expect(res.headers['x-ratelimit-remaining-requests']).toBe('2');
    expect(await tokensLeft(keyId)).toBeLessThan(2.1);
  });

  it('refuses to let a success out if the handler never settled the key', async () => {
    const service = t.app.get(ClientSecretsService);
    const leak = jest.spyOn(service, 'create').mockResolvedValue({ value: 'ek_leaked' } as never);
    try {
      const res = await createSecret(t, 'wk_unknownunknownunknown', {});
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBe('internal_error');
      expect(res.body).not.toContain('ek_leaked');
    } finally {
      leak.mockRestore();
    }
  });
});
