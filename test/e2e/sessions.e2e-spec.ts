import { ClientSecretsService } from '../../src/modules/client-secrets/client-secrets.service';
import { SessionExpirySweeper } from '../../src/modules/sessions/session-expiry.sweeper';
import { SessionEnds, type SessionToEnd } from '../../src/modules/sessions/session-ends';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { api, createSecret, expectError, expectIssue } from './client-secrets-fixtures';

describe.each(databaseTargets())('sessions on %s', (target) => {
  let t: TestApp;
  let key: string;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp(target, {
      env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000', SESSION_EXPIRY_SWEEP_SECONDS: '3600' },
    });
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    ({ apiKey: key, projectId } = await t.newProject());
  });

  const get = (url: string) => api(t, key, 'GET', url);
  const del = (id: string) => api(t, key, 'DELETE', `/v1/sessions/${id}`);
  const newSession = async (body: unknown = {}) => (await createSecret(t, key, body)).json();
  /** Rows straight into the table: any number, any creation time, any state. */
  const insertSessions = async (count: number, createdAt: string, status = 'closed') => {
    const ids = [...Array(count)].map(
      (_, i) => `sess_bulk${String(i).padStart(4, '0')}${Math.random().toString(36).slice(2, 10)}`,
    );
    await t.dataSource.query(
      `INSERT INTO sessions (id, project_id, type, model, status, pool, region, created_at, audio)
       SELECT unnest($1::varchar[]), $2, 'live', 'vendor-voicechat', $4, 'default', 'local', $3::timestamptz, '{"input":{"format":{"type":"audio/pcm","rate":24000},"transcription":{"language":"auto"},"turn_detection":null,"noise_reduction":null},"output":null}'::jsonb`,
      [ids, projectId, createdAt, status],
    );
    return ids;
  };
  const listAll = async (query: string) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/v1/sessions?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      seen.push(...page.data.map((s: { id: string }) => s.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    return seen;
  };

  describe('GET /v1/sessions/{id}', () => {
    it('shows every field of a new pending session', async () => {
      const { session, expires_at } = await newSession({ metadata: { who: 'me' } });
      const res = await get(`/v1/sessions/${session.id}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        id: session.id,
        object: 'session',
        type: 'live',
        model: 'vendor-voicechat',
        status: 'pending',
        pool: 'default',
        region: 'local',
        transport: 'websocket',
        call_id: null,
        created_at: expect.any(Number),
        started_at: null,
        ended_at: null,
        expires_at,
        close_reason: null,
        metadata: { who: 'me' },
        audio: session.audio,
        usage: { frames: 0, seconds: 0, cost_usd: '0.000000', tokens: null },
      });
      expect(Math.abs(body.created_at - Date.now() / 1000)).toBeLessThan(5);
    });

    it('shows usage and the close of an ended session', async () => {
      const { session, value } = await newSession({ session: { type: 'transcription' } });
      await t.app.get(ClientSecretsService).redeem(value);
      await t.dataSource.query(
        `UPDATE sessions SET frames = 1001, cost_micros = 8008, status = 'closed', close_reason = 'expired', ended_at = now() WHERE id = $1`,
        [session.id],
      );
      const body = (await get(`/v1/sessions/${session.id}`)).json();
      expect(body).toMatchObject({
        status: 'closed',
        close_reason: 'expired',
        started_at: expect.any(Number),
        ended_at: expect.any(Number),
      });
      expect(body.usage).toEqual({ frames: 1001, seconds: 80.08, cost_usd: '0.008008', tokens: null });
    });

    it('shows a pending session whose secret lapsed as expired before the sweeper runs', async () => {
      const { session } = await newSession();
      await t.dataSource.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        session.id,
      ]);
      expect((await get(`/v1/sessions/${session.id}`)).json().status).toBe('expired');
      expect((await get('/v1/sessions?status=expired')).json().data.map((s: { id: string }) => s.id)).toEqual([
        session.id,
      ]);
      expect((await get('/v1/sessions?status=pending')).json().data).toEqual([]);
      await t.app.get(SessionExpirySweeper).sweep();
      const [row] = await t.dataSource.query('SELECT status FROM sessions WHERE id = $1', [session.id]);
      expect(row.status).toBe('expired');
    });

    it("answers 404 for an unknown id and for another project's session", async () => {
      expectError(await get('/v1/sessions/sess_doesnotexist'), 404, 'not_found');
      const { session } = await newSession();
      const other = await t.newProject('other');
      expectError(await api(t, other.apiKey, 'GET', `/v1/sessions/${session.id}`), 404, 'not_found');
      expectError(await api(t, other.apiKey, 'DELETE', `/v1/sessions/${session.id}`), 404, 'not_found');
      expect((await api(t, other.apiKey, 'GET', '/v1/sessions')).json().data).toEqual([]);
    });
  });

  describe('GET /v1/sessions', () => {
    it('answers an empty list in the list shape', async () => {
      expect((await get('/v1/sessions')).json()).toEqual({
        object: 'list',
        data: [],
        has_more: false,
        next_cursor: null,
      });
    });

    it('lists newest first, 20 a page by default, and pages through everything exactly once', async () => {
      const older = await insertSessions(15, '2026-01-01T00:00:00.000001Z');
      const newer = await insertSessions(15, '2026-01-02T00:00:00Z');
      const first = (await get('/v1/sessions')).json();
      expect(first.data).toHaveLength(20);
      expect(first.has_more).toBe(true);
      expect(
        first.data
          .slice(0, 15)
          .map((s: { id: string }) => s.id)
          .sort(),
      ).toEqual([...newer].sort());
      const all = await listAll('limit=7');
      expect(all).toHaveLength(30);
      expect(new Set(all).size).toBe(30);
      expect(all.slice(0, 15).sort()).toEqual([...newer].sort());
      expect(all.slice(15).sort()).toEqual([...older].sort());
    });

    it('pages stably through sessions created in the same microsecond', async () => {
      const ids = await insertSessions(25, '2026-03-03T03:03:03.333333Z');
      const expected = [...ids].sort().reverse(); // ties break on id, descending
      expect(await listAll('limit=4')).toEqual(expected);
      expect(await listAll('limit=1')).toEqual(expected);
      expect(await listAll('limit=100')).toEqual(expected);
    });

    it('filters by from (inclusive) and to (exclusive) in Unix seconds', async () => {
      const [at99] = await insertSessions(1, '2026-01-01T00:01:39Z');
      const [at100] = await insertSessions(1, '2026-01-01T00:01:40Z');
      const [at100half] = await insertSessions(1, '2026-01-01T00:01:40.5Z');
      const [at101] = await insertSessions(1, '2026-01-01T00:01:41Z');
      const t100 = Date.parse('2026-01-01T00:01:40Z') / 1000;
      expect(await listAll(`from=${t100}`)).toEqual([at101, at100half, at100]);
      expect(await listAll(`to=${t100}`)).toEqual([at99]);
      expect(await listAll(`from=${t100}&to=${t100 + 1}`)).toEqual([at100half, at100]);
      expect(await listAll(`from=${t100 + 5}&to=${t100}`)).toEqual([]);
    });

    it('filters by status', async () => {
      const [closed] = await insertSessions(1, '2026-01-01T00:00:00Z', 'closed');
      const [active] = await insertSessions(1, '2026-01-01T00:00:01Z', 'active');
      const [expired] = await insertSessions(1, '2026-01-01T00:00:02Z', 'expired');
      const { session } = await newSession();
      expect(await listAll('status=closed')).toEqual([closed]);
      expect(await listAll('status=active')).toEqual([active]);
      expect(await listAll('status=expired')).toEqual([expired]);
      expect(await listAll('status=pending')).toEqual([session.id]);
      expect(await listAll('')).toEqual([session.id, expired, active, closed]);
    });

    it('ignores unknown query parameters', async () => {
      expect((await get('/v1/sessions?foo=bar')).statusCode).toBe(200);
    });

    it.each<[string, string]>([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['from=-1', 'from'],
      ['from=yesterday', 'from'],
      ['to=1.5', 'to'],
      ['status=running', 'status'],
    ])('refuses %s with 422 at its query loc', async (query, name) => {
      expectIssue(await get(`/v1/sessions?${query}`), ['query', name]);
    });

    it.each([
      ['garbage', 'not-a-cursor!'],
      ['edited', Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000Z', 'sess_x', 'extra'])).toString('base64url')],
      ['bad JSON', Buffer.from('{').toString('base64url')],
    ])('refuses a %s cursor with 400 invalid_parameter, param cursor', async (_name, cursor) => {
      expectError(await get(`/v1/sessions?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_parameter', 'cursor');
    });
  });

  describe('DELETE /v1/sessions/{id}', () => {
    it('revokes the secret of a pending session, frees its slot and hides it (204, no body)', async () => {
      // Fill the project's concurrency (the default, 6) with pending sessions, the last one deleted.
      for (let i = 0; i < 5; i++) await newSession();
      const { session, value } = await newSession();
      expectError(await createSecret(t, key), 429, 'concurrency_limit_exceeded');
      const res = await del(session.id);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expectError(await get(`/v1/sessions/${session.id}`), 404, 'not_found');
      expect((await get('/v1/sessions?limit=100')).json().data.map((s: { id: string }) => s.id)).not.toContain(
        session.id,
      );
      await expect(t.app.get(ClientSecretsService).redeem(value)).rejects.toMatchObject({
        code: 'invalid_client_secret',
      });
      expect((await createSecret(t, key)).statusCode).toBe(200);
      const [row] = await t.dataSource.query('SELECT status, close_reason, deleted_at FROM sessions WHERE id = $1', [
        session.id,
      ]);
      expect(row).toMatchObject({ status: 'closed', close_reason: 'close_requested', deleted_at: expect.any(Date) });
      expectError(await del(session.id), 404, 'not_found');
    });

    it('ends an active session through SessionEnds and keeps its usage', async () => {
      const ended: SessionToEnd[] = [];
      // A spy, so that the socket layer's own registration stays in place for the other tests.
      const terminate = jest
        .spyOn(t.app.get(SessionEnds), 'request')
        .mockImplementation(async (s) => void ended.push(s));
      try {
        const { session, value } = await newSession();
        await t.app.get(ClientSecretsService).redeem(value, { instanceId: 'inst-1' });
        await t.dataSource.query('UPDATE sessions SET frames = 50, cost_micros = 400 WHERE id = $1', [session.id]);
        expect((await del(session.id)).statusCode).toBe(204);
        expect(ended).toEqual([{ id: session.id, projectId, instanceId: 'inst-1' }]);
        expectError(await get(`/v1/sessions/${session.id}`), 404, 'not_found');
        const [row] = await t.dataSource.query('SELECT status, frames, cost_micros FROM sessions WHERE id = $1', [
          session.id,
        ]);
        expect(row).toMatchObject({ status: 'active', frames: 50, cost_micros: '400' }); // its socket records the close
      } finally {
        terminate.mockRestore();
      }
    });

    it('still deletes when the end request fails (the session ends at its time limit)', async () => {
      const terminate = jest.spyOn(t.app.get(SessionEnds), 'request').mockRejectedValue(new Error('socket layer down'));
      try {
        const { session, value } = await newSession();
        await t.app.get(ClientSecretsService).redeem(value);
        expect((await del(session.id)).statusCode).toBe(204);
        expectError(await get(`/v1/sessions/${session.id}`), 404, 'not_found');
      } finally {
        terminate.mockRestore();
      }
    });

    it('deletes a closed session without asking for its end', async () => {
      const calls: string[] = [];
      const terminate = jest
        .spyOn(t.app.get(SessionEnds), 'request')
        .mockImplementation(async (s) => void calls.push(s.id));
      const [closed] = await insertSessions(1, '2026-01-01T00:00:00Z', 'closed');
      expect((await del(closed)).statusCode).toBe(204);
      expect(calls).toEqual([]);
      terminate.mockRestore();
    });
  });
});
