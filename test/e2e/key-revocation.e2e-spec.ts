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
});
