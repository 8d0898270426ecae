import { newAdminToken, sha256Hex } from '../../src/platform/ids';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

type Method = 'GET' | 'POST' | 'PUT';

describe.each(databaseTargets())('admin API on %s', (target) => {
  const token = newAdminToken();
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { ADMIN_API_KEY_SHA256: sha256Hex(token) } });
  });
  afterAll(() => t?.close());

  const admin = (method: Method, url: string, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}`, ...headers } });

  it('opens only with the admin token: no credential, an API key or a wrong token are refused', async () => {
    const { apiKey } = await t.newProject();
    const without = await t.app.inject({ method: 'GET', url: '/v1/admin/projects' });
    expect(without.statusCode).toBe(401);
    expect(without.json().error).toMatchObject({ code: 'missing_api_key', request_id: expect.any(String) });
    const withKey = await t.app.inject({
      method: 'GET',
      url: '/v1/admin/projects',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(withKey.json().error.code).toBe('invalid_api_key');
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/v1/admin/projects',
      headers: { authorization: `Bearer ${newAdminToken()}` },
    });
    expect(wrong.statusCode).toBe(401);
    // The admin token opens nothing but the admin API.
    expect((await admin('GET', '/v1/models')).json().error.code).toBe('invalid_api_key');
  });

  it('manages a project end to end, recording who did what', async () => {
    const created = await admin('POST', '/v1/admin/projects', { name: 'Worker' });
    expect(created.statusCode).toBe(201);
    const { project, key } = created.json();
    const models = await t.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(models.statusCode).toBe(200);

    const ops = { 'x-continuum-actor': 'ops@example' };
    expect((await admin('POST', `/v1/admin/projects/${project.id}/credit`, { usd: '2.5' }, ops)).statusCode).toBe(200);
    const unlimited = await admin('PUT', `/v1/admin/projects/${project.id}/credit_limit`, { usd: null }, ops);
    expect(unlimited.json().project.credit_limit_usd).toBeNull();
    const limits = await admin('PUT', `/v1/admin/projects/${project.id}/limits`, { concurrent_sessions: 2 }, ops);
    expect(limits.json().project).toMatchObject({ concurrent_sessions: 2, balance_usd: '12.500000' });

    const second = (await admin('POST', `/v1/admin/projects/${project.id}/keys`, { name: 'batch' }, ops)).json();
    const listed = (await admin('GET', `/v1/admin/projects/${project.id}/keys`)).json().data;
    expect(listed.map((k: any) => k.name)).toEqual(['default', 'batch']);
    expect(JSON.stringify(listed)).not.toContain(second.secret);
    const revoked = await admin('POST', `/v1/admin/keys/${second.id}/revoke`, undefined, ops);
    expect(revoked.json()).toMatchObject({ id: second.id, revoked_at: expect.any(Number) });
    const rotated = (await admin('POST', `/v1/admin/keys/${key.id}/rotate`, {}, ops)).json();
    expect(rotated.revoked.id).toBe(key.id);

    const history = (await admin('GET', `/v1/admin/projects/${project.id}/history?last=6`)).json().data;
    expect(history.map((e: any) => [e.kind, e.by])).toEqual([
      ['key_rotated', 'admin-api:ops@example'],
      ['key_revoked', 'admin-api:ops@example'],
      ['key_created', 'admin-api:ops@example'],
      ['limits_set', 'admin-api:ops@example'],
      ['credit_limit_set', 'admin-api:ops@example'],
      ['credit_added', 'admin-api:ops@example'],
    ]);
    expect(t.logs.join('')).not.toContain(token);
  });

  it('validates its input and answers unknown projects and keys with 404', async () => {
    const { projectId } = await t.newProject();
    expect((await admin('POST', `/v1/admin/projects/${projectId}/credit`, { usd: '1e3' })).statusCode).toBe(422);
    expect((await admin('PUT', `/v1/admin/projects/${projectId}/credit_limit`, { usd: '-1' })).statusCode).toBe(422);
    expect((await admin('PUT', `/v1/admin/projects/${projectId}/credit_limit`, {})).statusCode).toBe(422);
    expect((await admin('PUT', `/v1/admin/projects/${projectId}/limits`, { concurrent_sessions: 0 })).statusCode).toBe(
      422,
    );
    expect((await admin('PUT', `/v1/admin/projects/${projectId}/limits`, {})).json().error.code).toBe(
      'invalid_parameter',
    );
    const actor = await admin(
      'POST',
      `/v1/admin/projects/${projectId}/credit`,
      { usd: '1' },
      { 'x-continuum-actor': '' },
    );
    expect(actor.json().error.code).toBe('invalid_parameter');
    expect((await admin('GET', '/v1/admin/projects/proj_nope')).statusCode).toBe(404);
    expect((await admin('POST', '/v1/admin/keys/key_nope/revoke')).statusCode).toBe(404);
  });

  it('stays out of the public OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.includes('admin'))).toEqual([]);
  });
});

describe('admin API without ADMIN_API_KEY_SHA256', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(databaseTargets()[0]);
  });
  afterAll(() => t?.close());

  it('does not exist', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/admin/projects',
      headers: { authorization: `Bearer ${newAdminToken()}` },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });
});
