import { ProjectsService } from '../../src/modules/projects/projects.service';
import { tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';

const START = { type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } };
/** A revocation reaches live sockets on their holder's next heartbeat (every 5 s), with room for a loaded machine. */
const HEARTBEAT_BOUND_MS = 20_000;

/**
 * Revoking a key (as `keys revoke` does) closes every door it opened: its unused client secrets no
 * longer open sessions, and the live sessions it opened end with detail key_revoked, usage recorded.
 */
describe.each(databaseTargets())('revoking an API key on %s', (target) => {
  let t: TestApp;
  let projects: ProjectsService;
  let wsUrl: string;

  beforeAll(async () => {
    t = await startTestApp(target, { env: { CONCURRENT_SESSIONS_LIMIT: '3' } });
    projects = t.app.get(ProjectsService);
    wsUrl = `${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`;
  });
  afterAll(() => t?.close());

  const newSecret = async (apiKey: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/live/client_secrets',
      payload: { session: {} },
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as { value: string; session: { id: string } };
  };
  const sessionRow = async (id: string) =>
    (
      await t.dataSource.query<{ status: string; close_reason: string | null; frames: number }[]>(
        'SELECT status, close_reason, frames FROM sessions WHERE id = $1',
        [id],
      )
    )[0];

  it("invalidates the key's unused client secrets, which then stop counting toward the limit", async () => {
    const { projectId, apiKey, keyId } = await t.newProject();
    const other = await projects.createKey(projectId, 'other');
    const secrets = [await newSecret(apiKey), await newSecret(apiKey), await newSecret(apiKey)];
    const full = await t.app.inject({
      method: 'POST',
      url: '/v1/live/client_secrets',
      payload: {},
      headers: { authorization: `Bearer ${other.secret}` },
    });
    expect(full.json().error.code).toBe('concurrency_limit_exceeded');

    const { revokedSecrets } = await projects.revokeKey(keyId, 'test');
    expect(revokedSecrets).toBe(3);

    const refusal = await SocketClient.refusal(`${wsUrl}?token=${encodeURIComponent(secrets[0].value)}`);
    expect(refusal).toMatchObject({ status: 401, body: { error: { code: 'key_revoked' } } });
    expect(await sessionRow(secrets[1].session.id)).toMatchObject({
      status: 'closed',
      close_reason: 'close_requested',
    });
    // The revoked secrets freed their slots: the project's other key gets one at once.
    expect((await newSecret(other.secret)).value).toMatch(/^ek_/);
  });

  it('ends the live sessions the key opened, by secret or by the key itself, and leaves the others running', async () => {
    const { projectId, apiKey, keyId } = await t.newProject();
    const other = await projects.createKey(projectId, 'other');
    const bySecret = await SocketClient.open(`${wsUrl}?token=${encodeURIComponent((await newSecret(apiKey)).value)}`);
    const byKey = await SocketClient.open(wsUrl, { headers: { authorization: `Bearer ${apiKey}` } });
    const untouched = await SocketClient.open(wsUrl, { headers: { authorization: `Bearer ${other.secret}` } });
    for (const c of [bySecret, byKey, untouched]) c.send(START);
    const started = await Promise.all([bySecret, byKey, untouched].map((c) => c.waitFor('session.started')));
    for (const c of [bySecret, byKey])
      c.send({ type: 'session.input_audio.append', audio: tone(800).toString('base64') });
    // The engine answering the audio shows it arrived (and was metered) before the revocation.
    await Promise.all([bySecret, byKey].map((c) => c.waitFor('session.input_transcript.delta')));

    await projects.revokeKey(keyId, 'test');

    for (const [i, c] of [bySecret, byKey].entries()) {
      const closed = await c.waitFor('session.closed', HEARTBEAT_BOUND_MS);
      expect(closed).toMatchObject({ reason: 'close_requested', detail: 'key_revoked', usage: { frames: 10 } });
      expect(await c.waitClosed()).toBe(1008);
      expect(await sessionRow(started[i].session.id)).toMatchObject({
        status: 'closed',
        close_reason: 'close_requested',
        frames: 10,
      });
    }
    const billed = await t.dataSource.query<{ frames: string }[]>(
      'SELECT coalesce(sum(frames), 0) AS frames FROM meter_events WHERE session_id = ANY($1)',
      [[started[0].session.id, started[1].session.id]],
    );
    expect(Number(billed[0].frames)).toBe(20);

    expect(untouched.closeCode).toBeNull();
    untouched.send({ type: 'session.close' });
    expect((await untouched.waitFor('session.closed')).detail).toBe('client_requested');
  }, 60_000);

  it('refuses to start a session on a socket whose key was revoked after its handshake', async () => {
    const { apiKey, keyId } = await t.newProject();
    const c = await SocketClient.open(wsUrl, { headers: { authorization: `Bearer ${apiKey}` } });
    await projects.revokeKey(keyId, 'test');
    c.send(START);
    expect((await c.waitFor('error')).error.code).toBe('key_revoked');
    expect(c.ofType('session.started')).toEqual([]);
    const rows = await t.dataSource.query('SELECT id FROM sessions WHERE api_key_id = $1', [keyId]);
    expect(rows).toEqual([]);
    c.ws.close();
  });

  it('tells a Realtime client why: an error key_revoked, then close 1008', async () => {
    const { apiKey, keyId } = await t.newProject();
    const realtimeUrl = `${t.baseUrl.replace('http', 'ws')}/v1/realtime?intent=transcription`;
    const c = await SocketClient.open(realtimeUrl, { headers: { authorization: `Bearer ${apiKey}` } });
    await c.waitFor('session.created');
    await projects.revokeKey(keyId, 'test');
    const error = await c.waitFor('error', HEARTBEAT_BOUND_MS);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'key_revoked' });
    expect(await c.waitClosed()).toBe(1008);
  }, 60_000);

  it('leaves no session of the key running when redemptions race the revocation', async () => {
    const { apiKey, keyId } = await t.newProject();
    await t.dataSource.query(
      `UPDATE projects SET concurrent_sessions_limit = 20 WHERE id = (SELECT project_id FROM api_keys WHERE id = $1)`,
      [keyId],
    );
    const secrets = await Promise.all(Array.from({ length: 8 }, () => newSecret(apiKey)));
    const attempts = secrets.map((s) =>
      SocketClient.open(`${wsUrl}?token=${encodeURIComponent(s.value)}`).then(
        (c) => ({ opened: c }),
        (e: { refusal?: { body: { error: { code: string } } } }) => ({ refused: e.refusal?.body.error.code }),
      ),
    );
    await projects.revokeKey(keyId, 'test');
    const outcomes = await Promise.all(attempts);
    // Each socket either lost the race (refused: the secret was revoked) or won it and is then ended.
    for (const o of outcomes) if ('refused' in o) expect(o.refused).toBe('key_revoked');
    const opened = outcomes.flatMap((o) => ('opened' in o ? [o.opened] : []));
    for (const c of opened) {
      c.send(START);
      expect(await c.waitClosed(HEARTBEAT_BOUND_MS)).toBe(1008);
    }
    const open = await t.dataSource.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM sessions WHERE api_key_id = $1 AND status IN ('pending', 'active')`,
      [keyId],
    );
    expect(Number(open[0].n)).toBe(0);
  }, 60_000);
});
