import { Client } from 'pg';
import { tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { createTestDatabase, databaseTargets } from '../support/test-database';
import { startTestApp } from '../support/test-app';

describe.each(databaseTargets())('shutdown with live sessions on %s', (target) => {
  it('closes and records every live session, never leaving one active', async () => {
    const db = await createTestDatabase(target);
    try {
      const t = await startTestApp(target, { databaseUrl: db.url, env: { SHUTDOWN_GRACE_SECONDS: '1' } });
      const { apiKey } = await t.newProject();
      const c = await SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      c.send({ type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } });
      const started = await c.waitFor('session.started');
      c.send({ type: 'session.input_audio.append', audio: tone(800).toString('base64') });
      await c.waitFor('session.input_transcript.delta');

      await t.app.close();

      const closed = await c.waitFor('session.closed');
      expect(closed).toMatchObject({ reason: 'connection_lost', detail: 'server_shutdown', usage: { frames: 10 } });
      expect(await c.waitClosed()).toBe(1001);
      const pg = new Client({ connectionString: db.url });
      await pg.connect();
      const { rows } = await pg.query('SELECT status, close_reason, frames, ended_at FROM sessions WHERE id = $1', [
        started.session.id,
      ]);
      await pg.end();
      expect(rows[0]).toMatchObject({ status: 'closed', close_reason: 'connection_lost', frames: 10 });
      expect(rows[0].ended_at).not.toBeNull();
    } finally {
      await db.drop();
    }
  }, 60_000);
});
