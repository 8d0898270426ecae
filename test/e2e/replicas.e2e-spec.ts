import { Client } from 'pg';
import { sha256Hex } from '../../src/common/ids';
import { tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { serviceBuilt, ServiceProcess } from '../support/service-process';
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
      SESSION_HEARTBEAT_TIMEOUT_SECONDS: '3',
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
});
