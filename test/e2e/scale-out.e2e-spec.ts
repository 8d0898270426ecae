import { Client } from 'pg';
import { LifecycleState } from '../../src/modules/health/lifecycle-state';
import { tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { api, createSecret, sleep } from './client-secrets-fixtures';

const QUIET = { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000', DATABASE_POOL_SIZE: '4' };
const START = { type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } };

async function startLive(t: TestApp, apiKey: string, options: { autoPong?: boolean } = {}) {
  const c = await SocketClient.open(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
    headers: { authorization: `Bearer ${apiKey}` },
    autoPong: options.autoPong ?? true,
  });
  c.send(START);
  const started = await c.waitFor('session.started');
  return { c, sessionId: started.session.id as string };
}

/** Two instances on one PostgreSQL: a DELETE on one ends the socket the other holds, by NOTIFY. */
const describeOnPostgres = databaseTargets().includes('postgres') ? describe : describe.skip;

describeOnPostgres('DELETE across instances (PostgreSQL LISTEN/NOTIFY)', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    a = await startTestApp('postgres', { databaseUrl: db.url, env: QUIET });
    b = await startTestApp('postgres', { databaseUrl: db.url, env: QUIET });
    ({ apiKey } = await a.newProject());
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await db?.drop();
  });

  const deleteAcross = async () => {
    const { c, sessionId } = await startLive(b, apiKey);
    const sent = Date.now();
    expect((await api(a, apiKey, 'DELETE', `/v1/sessions/${sessionId}`)).statusCode).toBe(204);
    const closed = await c.waitFor('session.closed', 5000);
    const elapsed = Date.now() - sent;
    expect(closed).toMatchObject({ reason: 'close_requested', detail: 'session_deleted' });
    expect(await c.waitClosed()).toBe(1000);
    return elapsed;
  };

  it('ends the socket held by the other instance within 1 s (the heartbeat alone takes up to 5 s)', async () => {
    const elapsed = [await deleteAcross(), await deleteAcross(), await deleteAcross()];
    expect(Math.max(...elapsed)).toBeLessThan(1000);
  }, 60_000);

  it('still does after the listening connections were cut (they reconnect)', async () => {
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      const listeners = `SELECT pid FROM pg_stat_activity WHERE application_name = 'continuum-signals' AND datname = current_database()`;
      const before = (await admin.query<{ pid: number }>(listeners)).rows.map((r) => r.pid);
      expect(before).toHaveLength(2);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM (${listeners}) l`);
      const deadline = Date.now() + 10_000;
      let after: number[] = [];
      while (Date.now() < deadline) {
        after = (await admin.query<{ pid: number }>(listeners)).rows.map((r) => r.pid);
        if (after.length === 2 && after.every((pid) => !before.includes(pid))) break;
        await sleep(100);
      }
      expect(after.filter((pid) => !before.includes(pid))).toHaveLength(2);
    } finally {
      await admin.end();
    }
    expect(await deleteAcross()).toBeLessThan(1000);
  }, 60_000);

  it('with SESSION_SIGNALS=heartbeat an instance does not listen, and the heartbeat still ends its sockets', async () => {
    const c = await startTestApp('postgres', { databaseUrl: db.url, env: { ...QUIET, SESSION_SIGNALS: 'heartbeat' } });
    try {
      const admin = new Client({ connectionString: db.url });
      await admin.connect();
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'continuum-signals' AND datname = current_database()`,
      );
      await admin.end();
      expect(rows[0].n).toBe(2); // A's and B's only
      const { c: socket, sessionId } = await startLive(c, apiKey);
      const sent = Date.now();
      expect((await api(a, apiKey, 'DELETE', `/v1/sessions/${sessionId}`)).statusCode).toBe(204);
      expect(await socket.waitFor('session.closed', 10_000)).toMatchObject({ reason: 'close_requested' });
      expect(Date.now() - sent).toBeLessThan(8000); // one 5 s heartbeat, with room for a loaded machine
    } finally {
      await c.close();
    }
  }, 60_000);
});

describe.each(databaseTargets())('one instance on %s', (target) => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp(target, {
      env: { ...QUIET, SOCKET_PING_INTERVAL_SECONDS: '1', SOCKET_PONG_TIMEOUT_SECONDS: '1' },
    });
    ({ apiKey } = await t.newProject());
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('DELETE ends a socket it holds itself at once', async () => {
    const { c, sessionId } = await startLive(t, apiKey);
    const sent = Date.now();
    expect((await api(t, apiKey, 'DELETE', `/v1/sessions/${sessionId}`)).statusCode).toBe(204);
    expect(await c.waitFor('session.closed', 5000)).toMatchObject({ reason: 'close_requested' });
    expect(Date.now() - sent).toBeLessThan(1000);
  }, 30_000);

  it('keep-alive: a peer that stops answering pings is closed within the configured time, usage recorded', async () => {
    const dead = await startLive(t, apiKey, { autoPong: false });
    const alive = await startLive(t, apiKey);
    let pings = 0;
    alive.c.ws.on('ping', () => pings++);
    dead.c.send({ type: 'session.input_audio.append', audio: tone(800).toString('base64') });
    await dead.c.waitFor('session.input_transcript.delta');
    const since = Date.now();
    // A ping within 1 s, unanswered for 1 s: closed within about 2 s (bounds for a loaded machine).
    expect(await dead.c.waitClosed(8000)).toBe(1006);
    expect(Date.now() - since).toBeLessThan(6000);
    const [row] = await t.dataSource.query(
      'SELECT status, close_reason, frames, ended_at FROM sessions WHERE id = $1',
      [dead.sessionId],
    );
    expect(row).toMatchObject({ status: 'closed', close_reason: 'connection_lost', frames: 10 });
    const [{ frames }] = await t.dataSource.query(
      'SELECT coalesce(sum(frames), 0)::int AS frames FROM meter_events WHERE session_id = $1',
      [dead.sessionId],
    );
    expect(frames).toBe(10);
    // The idle peer that answers stays open (pings also keep proxies from cutting it).
    await sleep(1500);
    expect(alive.c.closeCode).toBeNull();
    expect(pings).toBeGreaterThanOrEqual(1);
    alive.c.send({ type: 'session.close' });
    await alive.c.waitClosed();
  }, 30_000);

  it('logs probe requests at debug level, other requests at info', async () => {
    const requestId = `req_probe_${Date.now()}`;
    await fetch(`${t.baseUrl}/readyz`, { headers: { 'x-request-id': requestId } });
    await fetch(`${t.baseUrl}/healthz`, { headers: { 'x-request-id': `${requestId}_live` } });
    await fetch(`${t.baseUrl}/v1/models`, { headers: { 'x-request-id': `${requestId}_models` } });
    await sleep(100);
    const levels = (id: string) =>
      t.logs
        .map((line) => JSON.parse(line) as { level: number; reqId?: string })
        .filter((line) => line.reqId === id)
        .map((line) => line.level);
    expect(levels(requestId)).toEqual([20, 20]);
    expect(levels(`${requestId}_live`)).toEqual([20, 20]);
    expect(levels(`${requestId}_models`)).toEqual(expect.arrayContaining([30]));
  });

  it('draining: no client secrets, no sockets, /readyz 503, all with shutting_down and retry_after_ms', async () => {
    const lifecycle = t.app.get(LifecycleState);
    lifecycle.startDraining();
    const secret = await createSecret(t, apiKey);
    expect(secret.statusCode).toBe(503);
    expect(secret.json().error).toMatchObject({ code: 'shutting_down', retry_after_ms: 1000 });
    expect(secret.headers['retry-after']).toBe('1');
    const refusal = await SocketClient.refusal(`${t.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(refusal).toMatchObject({ status: 503, body: { error: { code: 'shutting_down', retry_after_ms: 1000 } } });
    const ready = await fetch(`${t.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { error: { code: string } }).error.code).toBe('shutting_down');
  }, 30_000);
});
