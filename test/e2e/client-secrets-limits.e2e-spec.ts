import { AppError } from '../../src/platform/errors/app-error';
import { ClientSecretsService } from '../../src/modules/client-secrets/client-secrets.service';
import { SessionsService } from '../../src/modules/sessions/sessions.service';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { api, createSecret, databaseUrlOf, expectError, setBalance, sleep } from './client-secrets-fixtures';

const ENV = {
  RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
  SESSION_EXPIRY_SWEEP_SECONDS: '1',
  CONCURRENT_SESSIONS_LIMIT: '10',
};

/** Settles every promise and tells the AppError codes apart from successes. */
async function outcomes<T>(work: Promise<T>[]): Promise<{ ok: T[]; codes: string[] }> {
  const settled = await Promise.allSettled(work);
  const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const codes = settled.flatMap((s) =>
    s.status === 'rejected' ? [(s.reason as AppError).code ?? String(s.reason)] : [],
  );
  return { ok, codes };
}

const principalOf = (p: { projectId: string; keyId: string }) => ({
  kind: 'api_key' as const,
  projectId: p.projectId,
  apiKeyId: p.keyId,
});

describe.each(databaseTargets())('limits and redemption on %s', (target) => {
  let t: TestApp;
  let key: string;
  let project: { projectId: string; apiKey: string; keyId: string };
  let secrets: ClientSecretsService;
  let sessions: SessionsService;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { ...ENV, PUBLIC_URL: 'https://speech.example.com/base/' } });
    secrets = t.app.get(ClientSecretsService);
    sessions = t.app.get(SessionsService);
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    project = await t.newProject();
    key = project.apiKey;
  });

  const create = (body: unknown = {}) => createSecret(t, key, body);
  const openCount = async () =>
    Number(
      (
        await t.dataSource.query(
          `SELECT count(*) AS n FROM sessions WHERE project_id = $1 AND (status = 'active' OR (status = 'pending' AND expires_at > now()))`,
          [project.projectId],
        )
      )[0].n,
    );

  it('builds live_url from PUBLIC_URL, whatever the request says', async () => {
    const res = await createSecret(t, key, {}, { headers: { host: 'evil.test', 'x-forwarded-proto': 'http' } });
    expect(res.json().session.live_url).toBe('wss://speech.example.com/base/v1/live/sessions');
  });

  it('lets exactly 10 of 50 parallel creations through a limit of 10', async () => {
    const answers = await Promise.all([...Array(50)].map(() => create()));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(10);
    const refused = answers.filter((a) => a.statusCode !== 200);
    expect(refused).toHaveLength(40);
    for (const res of refused) {
      expectError(res, 429, 'concurrency_limit_exceeded');
      expect(res.json().error.retry_after_ms).toBeGreaterThan(0);
      expect(res.json().error.retry_after_ms).toBeLessThanOrEqual(60_000);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['x-ratelimit-limit-requests']).toBe('100000');
    }
    expect(await openCount()).toBe(10);
  });

  it('says when the earliest pending secret lapses', async () => {
    for (let i = 0; i < 9; i++) expect((await create({ expires_after: { seconds: 600 } })).statusCode).toBe(200);
    expect((await create({ expires_after: { seconds: 5 } })).statusCode).toBe(200);
    const res = await create();
    expectError(res, 429, 'concurrency_limit_exceeded');
    expect(res.json().error.retry_after_ms).toBeGreaterThan(3000);
    expect(res.json().error.retry_after_ms).toBeLessThanOrEqual(5000);
    expect(res.headers['retry-after']).toBe(String(Math.ceil(res.json().error.retry_after_ms / 1000)));
  });

  it('stops counting a lapsed secret at once, and the sweeper marks its session expired', async () => {
    // 3 s, so that the ten creations below fit before it lapses on a loaded machine too.
    const first = (await create({ expires_after: { seconds: 3 } })).json();
    for (let i = 0; i < 9; i++) await create();
    expectError(await create(), 429, 'concurrency_limit_exceeded');
    await sleep(Math.max(0, (first.expires_at + 1) * 1000 - Date.now())); // expires_at is whole seconds
    expect((await create()).statusCode).toBe(200);
    await sleep(1500); // SESSION_EXPIRY_SWEEP_SECONDS=1
    const [row] = await t.dataSource.query('SELECT status FROM sessions WHERE id = $1', [first.session.id]);
    expect(row.status).toBe('expired');
  });

  it('counts active sessions until they close; retry_after_ms then falls back to the earliest session end', async () => {
    const values = [];
    for (let i = 0; i < 10; i++) values.push((await create()).json().value);
    for (const value of values) await secrets.redeem(value);
    const res = await create();
    expectError(res, 429, 'concurrency_limit_exceeded');
    expect(res.json().error.retry_after_ms).toBeGreaterThan(110_000);
    expect(res.json().error.retry_after_ms).toBeLessThanOrEqual(120_000);
    const [one] = await t.dataSource.query(`SELECT id FROM sessions WHERE project_id = $1 LIMIT 1`, [
      project.projectId,
    ]);
    expect(await sessions.markClosed(one.id, 'close_requested')).toBe(true);
    expect(await sessions.markClosed(one.id, 'close_requested')).toBe(false);
    expect((await create()).statusCode).toBe(200);
  });

  describe('redeem()', () => {
    it('lets exactly one of 20 parallel redemptions of a secret win; the others get client_secret_used', async () => {
      const { value, session } = (await create({ metadata: { a: 'b' }, session: { type: 'transcription' } })).json();
      const { ok, codes } = await outcomes([...Array(20)].map(() => secrets.redeem(value, { instanceId: 'inst-a' })));
      expect(ok).toHaveLength(1);
      expect(codes).toEqual(Array(19).fill('client_secret_used'));
      expect(ok[0]).toEqual({
        id: session.id,
        projectId: project.projectId,
        apiKeyId: project.keyId,
        type: 'transcription',
        model: 'vendor-asr-streaming',
        pool: 'default',
        region: 'local',
        audio: expect.objectContaining({ output: null }),
        metadata: { a: 'b' },
        // A conversation secret's settings (instructions, tools…); a transcription secret carries none.
        realtimeSession: null,
        startedAt: expect.any(Date),
      });
      const [row] = await t.dataSource.query('SELECT * FROM sessions WHERE id = $1', [session.id]);
      expect(row).toMatchObject({ status: 'active', instance_id: 'inst-a' });
      expect(row.started_at).not.toBeNull();
      expect(row.heartbeat_at).not.toBeNull();
      const error = await secrets.redeem(value).catch((e: AppError) => e);
      expect(error).toMatchObject({ code: 'client_secret_used', status: 409 });
    });

    it.each([
      ['an unknown secret', `ek_${'x'.repeat(43)}`],
      ['an API key', 'wk_abc'],
      ['an empty string', ''],
      ['an overlong secret', `ek_${'x'.repeat(5000)}`],
    ])('refuses %s with invalid_client_secret (401)', async (_name, value) => {
      await expect(secrets.redeem(value)).rejects.toMatchObject({ code: 'invalid_client_secret', status: 401 });
    });

    it('refuses a lapsed secret with client_secret_expired (401)', async () => {
      const { value } = (await create({ expires_after: { seconds: 1 } })).json();
      await sleep(1100);
      await expect(secrets.redeem(value)).rejects.toMatchObject({ code: 'client_secret_expired', status: 401 });
    });

    it('refuses the secret of a deleted session with invalid_client_secret', async () => {
      const { value, session } = (await create()).json();
      expect((await api(t, key, 'DELETE', `/v1/sessions/${session.id}`)).statusCode).toBe(204);
      await expect(secrets.redeem(value)).rejects.toMatchObject({ code: 'invalid_client_secret' });
    });

    it('checks credit again at the start, without using up the secret', async () => {
      const { value } = (await create()).json();
      await setBalance(t, project.projectId, 0);
      await expect(secrets.redeem(value)).rejects.toMatchObject({ code: 'insufficient_credit', status: 403 });
      await setBalance(t, project.projectId, 1);
      await expect(secrets.redeem(value)).resolves.toMatchObject({ projectId: project.projectId });
    });
  });

  describe('openWithApiKey()', () => {
    it('opens an active session under the same limit: exactly 10 of 30 in parallel', async () => {
      const principal = principalOf(project);
      const { ok, codes } = await outcomes(
        [...Array(30)].map((_, i) =>
          sessions.openWithApiKey(principal, { type: i % 2 ? 'live' : 'transcription' }, { instanceId: 'inst-b' }),
        ),
      );
      expect(ok).toHaveLength(10);
      expect(codes).toEqual(Array(20).fill('concurrency_limit_exceeded'));
      expect(ok[0]).toMatchObject({
        projectId: project.projectId,
        apiKeyId: project.keyId,
        startedAt: expect.any(Date),
      });
      const rows = await t.dataSource.query(
        'SELECT status, expires_at, instance_id FROM sessions WHERE project_id = $1',
        [project.projectId],
      );
      expect(rows).toHaveLength(10);
      expect(rows.every((r: any) => r.status === 'active' && r.expires_at === null && r.instance_id === 'inst-b')).toBe(
        true,
      );
      expectError(await create(), 429, 'concurrency_limit_exceeded');
    });

    it('keeps a requested id and metadata, and refuses what cannot be served', async () => {
      const principal = principalOf(project);
      const opened = await sessions.openWithApiKey(principal, undefined, {
        sessionId: 'sess_fromsocket1',
        metadata: { m: '1' },
      });
      expect(opened).toMatchObject({
        id: 'sess_fromsocket1',
        type: 'live',
        model: 'vendor-voicechat',
        metadata: { m: '1' },
      });
      await expect(sessions.openWithApiKey(principal, { model: 'nope' })).rejects.toMatchObject({
        code: 'invalid_parameter',
        param: 'session.model',
      });
      await setBalance(t, project.projectId, 0);
      await expect(sessions.openWithApiKey(principal, {})).rejects.toMatchObject({ code: 'insufficient_credit' });
    });
  });
});

describe.each(databaseTargets())('two instances sharing one database on %s', (target) => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    // The embedded server takes 16 connections: two pools of the default 10 would not fit.
    const env = target === 'embedded' ? { ...ENV, DATABASE_POOL_SIZE: '4' } : ENV;
    a = await startTestApp(target, { env });
    b = await startTestApp(target, { env, databaseUrl: databaseUrlOf(a) });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('lets exactly 10 of 50 parallel creations through, split over both instances', async () => {
    const { apiKey, projectId } = await a.newProject();
    const answers = await Promise.all([...Array(50)].map((_, i) => createSecret(i % 2 ? a : b, apiKey)));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(10);
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(40);
    const [{ n }] = await a.dataSource.query('SELECT count(*)::int AS n FROM sessions WHERE project_id = $1', [
      projectId,
    ]);
    expect(n).toBe(10);
  });

  it('holds the limit when secrets and API-key sessions race on both instances', async () => {
    const project = await b.newProject();
    const principal = principalOf(project);
    const work = [...Array(40)].map((_, i): Promise<unknown> => {
      const app = i % 2 ? a : b;
      return i % 4 < 2
        ? createSecret(app, project.apiKey).then((r) =>
            r.statusCode === 200
              ? 'ok'
              : Promise.reject(new AppError('concurrency_limit_exceeded', String(r.statusCode))),
          )
        : app.app.get(SessionsService).openWithApiKey(principal, {});
    });
    const { ok, codes } = await outcomes(work);
    expect(ok).toHaveLength(10);
    expect(codes).toEqual(Array(30).fill('concurrency_limit_exceeded'));
  });

  it('lets exactly one of 20 parallel redemptions on both instances win', async () => {
    const { apiKey } = await a.newProject();
    const { value } = (await createSecret(a, apiKey)).json();
    const { ok, codes } = await outcomes(
      [...Array(20)].map((_, i) => (i % 2 ? a : b).app.get(ClientSecretsService).redeem(value)),
    );
    expect(ok).toHaveLength(1);
    expect(codes).toEqual(Array(19).fill('client_secret_used'));
  });
});
