import { Client } from 'pg';
import { sha256Hex } from '../../src/platform/ids';
import { sleep, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { serviceBuilt, ServiceProcess } from '../../bench/support/service-process';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

/**
 * Three replicas of the built service (`node dist/src/main.js`) on one real PostgreSQL, behaving as
 * one service: single-use secrets, limits and usage hold across them, DELETE reaches the replica that
 * holds the socket within 1 s, a killed replica's sessions are closed and billed once by the others,
 * and a SIGTERM drains a replica while the others take the new sessions.
 */
const runs = databaseTargets().includes('postgres') && serviceBuilt();
const describeReplicas = runs ? describe : describe.skip;

const KEY = `wk_${'R3pl1cas'.repeat(5)}`;
const RATE_KEY = `wk_${'Rat3L1m1t'.repeat(5)}`;
const LIMIT = 4;
const RATE = 120;
const START = { type: 'session.start', session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } } };

describeReplicas('three replicas on one PostgreSQL', () => {
  let db: TestDatabase;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let c: ServiceProcess;
  let pg: Client;
  const sockets: SocketClient[] = [];

  const post = (on: ServiceProcess, key = KEY, body: unknown = {}) =>
    fetch(`${on.baseUrl}/v1/live/client_secrets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const call = (on: ServiceProcess, method: string, path: string, key = KEY) =>
    fetch(`${on.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  const open = async (on: ServiceProcess, auth: { token?: string } = {}) => {
    const url = `${on.wsUrl}/v1/live/sessions${auth.token ? `?token=${encodeURIComponent(auth.token)}` : ''}`;
    const socket = await SocketClient.open(url, auth.token ? {} : { headers: { authorization: `Bearer ${KEY}` } });
    sockets.push(socket);
    return socket;
  };
  const started = async (on: ServiceProcess) => {
    const socket = await open(on);
    socket.send(START);
    const event = await socket.waitFor('session.started');
    return { socket, sessionId: event.session.id as string };
  };
  const sessionRow = async (id: string) =>
    (await pg.query('SELECT status, close_reason, frames, cost_micros FROM sessions WHERE id = $1', [id])).rows[0];

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    const env = {
      DATABASE_URL: db.url,
      SPEECH_ENGINE: 'scripted',
      LOG_LEVEL: 'info',
      STARTING_API_KEY: KEY,
      CONCURRENT_SESSIONS_LIMIT: String(LIMIT),
      RATE_LIMIT_REQUESTS_PER_MINUTE: String(RATE),
      // Holders beat every 5 s; a session is orphaned after two missed beats.
      SESSION_HEARTBEAT_TIMEOUT_SECONDS: '11',
      SESSION_REAPER_INTERVAL_SECONDS: '1',
      SHUTDOWN_GRACE_SECONDS: '30',
      DATABASE_POOL_SIZE: '4',
    };
    // Started together: migrations and the starting key race, and must still happen once.
    [a, b, c] = await Promise.all([
      ServiceProcess.start('A', env),
      ServiceProcess.start('B', env),
      ServiceProcess.start('C', env),
    ]);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    const [{ project_id }] = (await pg.query('SELECT project_id FROM api_keys')).rows;
    await pg.query(
      `INSERT INTO api_keys (id, project_id, name, key_hash, key_prefix) VALUES ('key_rate', $1, 'rate', $2, $3)`,
      [project_id, sha256Hex(RATE_KEY), RATE_KEY.slice(0, 10)],
    );
  }, 120_000);

  afterAll(async () => {
    for (const socket of sockets) socket.ws.terminate();
    await Promise.all([a, b, c].map((p) => p?.stop()));
    await pg?.end();
    await db?.drop();
  }, 60_000);

  it('started together: migrations once, one project with the configured key', async () => {
    const { rows } = await pg.query('SELECT count(*)::int AS n FROM projects');
    expect(rows[0].n).toBe(1);
    const migrations = await pg.query(
      'SELECT count(*)::int AS n, count(DISTINCT name)::int AS d FROM typeorm_migrations',
    );
    expect(migrations.rows[0].n).toBe(migrations.rows[0].d);
    for (const p of [a, b, c]) expect((await fetch(`${p.baseUrl}/readyz`)).status).toBe(200);
  });

  it('a secret minted on A is redeemed on B and refused on C', async () => {
    const res = await post(a);
    expect(res.status).toBe(200);
    const secret = (await res.json()) as { value: string; session: { id: string } };
    const onB = await open(b, { token: secret.value });
    onB.send({ type: 'session.start', session: { model: 'vendor-voicechat' } });
    expect((await onB.waitFor('session.started')).session.id).toBe(secret.session.id);
    const onC = await SocketClient.refusal(`${c.wsUrl}/v1/live/sessions?token=${encodeURIComponent(secret.value)}`);
    expect(onC).toMatchObject({ status: 409, body: { error: { code: 'client_secret_used' } } });
    onB.send({ type: 'session.close' });
    await onB.waitClosed();
  }, 30_000);

  it('the concurrency limit holds under a race across all three', async () => {
    const racers = [a, b, c].flatMap((p) => Array.from({ length: 5 }, () => post(p)));
    const answers = await Promise.all(racers);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15 - LIMIT);
    const refused = (await Promise.all(answers.filter((r) => r.status === 429).map((r) => r.json()))) as {
      error: { code: string };
    }[];
    expect(new Set(refused.map((r) => r.error.code))).toEqual(new Set(['concurrency_limit_exceeded']));
    // Free the slots again: DELETE of a pending session revokes its secret (on any replica).
    const issued = (await Promise.all(answers.filter((r) => r.status === 200).map((r) => r.json()))) as {
      session: { id: string };
    }[];
    const deleted = await Promise.all(
      issued.map((s, i) => call([a, b, c][i % 3], 'DELETE', `/v1/sessions/${s.session.id}`)),
    );
    expect(deleted.map((r) => r.status)).toEqual(issued.map(() => 204));
  }, 30_000);

  it('the request rate limit holds under a race across all three', async () => {
    const answers = await Promise.all(
      [a, b, c].flatMap((p) => Array.from({ length: 60 }, () => call(p, 'GET', '/v1/models', RATE_KEY))),
    );
    const ok = answers.filter((r) => r.status === 200).length;
    // The bucket holds RATE tokens and refills RATE per minute: a burst of a few seconds gets a few more.
    expect(ok).toBeGreaterThanOrEqual(RATE);
    expect(ok).toBeLessThanOrEqual(RATE + 10);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(180 - ok);
  }, 30_000);

  it('DELETE sent to C ends the socket B holds within 1 s', async () => {
    const { socket, sessionId } = await started(b);
    const sent = Date.now();
    expect((await call(c, 'DELETE', `/v1/sessions/${sessionId}`)).status).toBe(204);
    expect(await socket.waitFor('session.closed', 5000)).toMatchObject({ reason: 'close_requested' });
    expect(Date.now() - sent).toBeLessThan(1000);
    expect(await socket.waitClosed()).toBe(1000);
  }, 30_000);

  it('SIGTERM to A: /readyz 503 at once, its live session finishes, new sessions go to B, A exits 0', async () => {
    const live = await started(a);
    live.socket.send({ type: 'session.input_audio.append', audio: tone(800).toString('base64') });
    await live.socket.waitFor('session.input_transcript.delta');
    a.signal('SIGTERM');
    const signalled = Date.now();
    let ready = 200;
    while (ready !== 503 && Date.now() - signalled < 5000) {
      ready = (await fetch(`${a.baseUrl}/readyz`)).status;
      if (ready !== 503) await sleep(10);
    }
    expect(ready).toBe(503);
    expect(Date.now() - signalled).toBeLessThan(1000);

    const refusedSecret = await post(a);
    expect(refusedSecret.status).toBe(503);
    expect(refusedSecret.headers.get('retry-after')).toBe('1');
    expect(((await refusedSecret.json()) as { error: object }).error).toMatchObject({
      code: 'shutting_down',
      retry_after_ms: 1000,
    });
    const refusedSocket = await SocketClient.refusal(`${a.wsUrl}/v1/live/sessions`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(refusedSocket).toMatchObject({
      status: 503,
      body: { error: { code: 'shutting_down', retry_after_ms: 1000 } },
    });

    // The same requests succeed on B.
    const secret = (await (await post(b)).json()) as { value: string; session: { id: string } };
    const onB = await open(b, { token: secret.value });
    onB.send({ type: 'session.start', session: { model: 'vendor-voicechat' } });
    await onB.waitFor('session.started');
    onB.send({ type: 'session.close' });
    await onB.waitClosed();

    // A's live session runs on while A drains, then ends as the client asks; only then does A exit.
    live.socket.send({ type: 'session.input_audio.append', audio: tone(800).toString('base64') });
    await sleep(300);
    live.socket.send({ type: 'session.close' });
    expect(await live.socket.waitFor('session.closed')).toMatchObject({
      reason: 'close_requested',
      usage: { frames: 20 },
    });
    expect(await a.waitExit(30_000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(25_000); // it left when its session ended, not at the grace
    expect(await sessionRow(live.sessionId)).toMatchObject({
      status: 'closed',
      close_reason: 'close_requested',
      frames: 20,
    });
  }, 60_000);

  it('kill -9 of B: C closes its sessions connection_lost and bills them exactly once', async () => {
    const held = [await started(b), await started(b)];
    // Real-time audio (faster input is cut), past the first meter batch (62 frames = 4.96 s).
    for (let i = 0; i < 14; i++) {
      for (const { socket } of held) {
        socket.send({ type: 'session.input_audio.append', audio: tone(400).toString('base64') });
      }
      await sleep(400);
    }
    const ids = held.map((h) => h.sessionId);
    const flushed = async () =>
      (await pg.query('SELECT DISTINCT session_id FROM meter_events WHERE session_id = ANY($1)', [ids])).rowCount ?? 0;
    for (let waited = 0; (await flushed()) < 2 && waited < 10_000; waited += 100) await sleep(100);
    expect(await flushed()).toBe(2);

    const active = await pg.query(`SELECT count(*)::int AS n FROM sessions WHERE id = ANY($1) AND status = 'active'`, [
      ids,
    ]);
    expect(active.rows[0].n).toBe(2);
    b.signal('SIGKILL');
    const killed = Date.now();
    expect(await b.waitExit()).toEqual({ code: null, signal: 'SIGKILL' });
    const closed = async () =>
      (await pg.query(`SELECT count(*)::int AS n FROM sessions WHERE id = ANY($1) AND status = 'closed'`, [ids]))
        .rows[0].n as number;
    while ((await closed()) < 2 && Date.now() - killed < 30_000) await sleep(100);
    const closedAfterMs = Date.now() - killed;
    expect(await closed()).toBe(2);
    // At most the heartbeat timeout (11 s) plus a reaper pass (1 s), with room for a loaded machine.
    expect(closedAfterMs).toBeLessThan(20_000);

    const billed = async () =>
      (
        await pg.query(
          `SELECT s.id, s.status, s.close_reason, s.frames, s.cost_micros::int AS cost,
                  (SELECT sum(frames)::int FROM meter_events m WHERE m.session_id = s.id) AS metered_frames,
                  (SELECT sum(cost_micros)::int FROM meter_events m WHERE m.session_id = s.id) AS metered_cost,
                  (SELECT count(*)::int FROM meter_events m WHERE m.session_id = s.id) AS events
           FROM sessions s WHERE s.id = ANY($1) ORDER BY s.id`,
          [ids],
        )
      ).rows;
    const first = await billed();
    for (const row of first) {
      expect(row).toMatchObject({ status: 'closed', close_reason: 'connection_lost' });
      expect(row.frames).toBe(row.metered_frames);
      expect(row.cost).toBe(row.metered_cost);
      expect(row.frames).toBeGreaterThanOrEqual(62);
    }
    // More reaper passes on C change nothing: billed once.
    await sleep(2500);
    expect(await billed()).toEqual(first);

    // The usage report, the export and the NDJSON meter events agree with the rows, and the balance
    // went down by exactly what was metered.
    const report = (await (await call(c, 'GET', '/v1/usage')).json()) as { data: { frames: number }[] };
    const exported = (await (await call(c, 'GET', '/v1/usage/export')).json()) as {
      data: { session_id: string; frames: number; close_reason: string }[];
    };
    const ndjson = (await (await call(c, 'GET', '/v1/usage/normalized-meter-events')).text())
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { session_id: string; frames: number });
    const totals = await pg.query(
      `SELECT (SELECT sum(frames)::int FROM sessions) AS frames,
              (SELECT sum(cost_micros)::int FROM meter_events) AS cost,
              (SELECT balance_micros::int FROM projects) AS balance`,
    );
    expect(report.data.reduce((n, d) => n + d.frames, 0)).toBe(totals.rows[0].frames);
    expect(ndjson.reduce((n, e) => n + e.frames, 0)).toBe(totals.rows[0].frames);
    for (const row of first) {
      expect(exported.data.find((e) => e.session_id === row.id)).toMatchObject({
        frames: row.frames,
        close_reason: 'connection_lost',
      });
      expect(ndjson.filter((e) => e.session_id === row.id).reduce((n, e) => n + e.frames, 0)).toBe(row.frames);
    }
    expect(totals.rows[0].balance).toBe(10_000_000 - totals.rows[0].cost);
    process.stdout.write(`replicas: kill -9 to both sessions closed and billed in ${closedAfterMs} ms\n`);
  }, 120_000);
});
