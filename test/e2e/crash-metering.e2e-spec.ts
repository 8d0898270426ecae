import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { FRAME_BYTES, sleep, tone } from '../support/audio';
import { SocketClient } from '../support/socket-client';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

/**
 * The built service killed with SIGKILL mid-session loses at most ~1 s of metered audio: what the
 * meter rows hold afterwards is compared with what the client sent, and a restarted instance's
 * reaper closes the orphan with exactly that usage. Needs `npm run build` (dist/src/main.js).
 */
const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');
const FRAME_S = 0.08;
/** 3.76 s of audio: with 5 s batches nothing at all was metered before the kill. */
const FRAMES_SENT = 47;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface Service {
  child: ChildProcess;
  baseUrl: string;
  stdout: string;
}

async function startService(databaseUrl: string): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      SPEECH_ENGINE: 'scripted',
      LOG_LEVEL: 'warn',
      SESSION_HEARTBEAT_TIMEOUT_SECONDS: '2',
      SESSION_REAPER_INTERVAL_SECONDS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const service = { child, baseUrl: `http://127.0.0.1:${port}`, stdout: '' };
  child.stdout!.on('data', (chunk: Buffer) => (service.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (service.stdout += chunk.toString()));
  const deadline = Date.now() + 45_000;
  while (!service.stdout.includes('Continuum listening')) {
    if (child.exitCode !== null) throw new Error(`the service exited: ${service.stdout}`);
    if (Date.now() > deadline) throw new Error(`the service did not start: ${service.stdout}`);
    await sleep(100);
  }
  return service;
}

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function query<T>(url: string, sql: string, params: unknown[]): Promise<T[]> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    return (await pg.query(sql, params)).rows as T[];
  } finally {
    await pg.end();
  }
}

describe.each(databaseTargets())('metered audio lost to kill -9 on %s', (target) => {
  let db: TestDatabase;
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first`);
    db = await createTestDatabase(target);
  });
  afterAll(async () => {
    for (const child of running) await kill9(child);
    await db?.drop();
  });

  it('is at most ~1 s, and the restarted instance bills exactly what was metered', async () => {
    const first = await startService(db.url);
    running.push(first.child);
    const apiKey = /wk_[0-9A-Za-z]{43,}/.exec(first.stdout)?.[0];
    expect(apiKey).toBeDefined();

    const socket = await SocketClient.open(`${first.baseUrl.replace('http', 'ws')}/v1/live/sessions`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    socket.send({ type: 'session.start', session: { model: 'vendor-asr-streaming' } });
    const sessionId = (await socket.waitFor('session.started')).session.id as string;
    const audio = tone(FRAMES_SENT * 80, 300);
    const started = Date.now();
    for (let i = 0; i < FRAMES_SENT; i++) {
      socket.send({
        type: 'session.input_audio.append',
        audio: audio.subarray(i * FRAME_BYTES, (i + 1) * FRAME_BYTES).toString('base64'),
      });
      // Real time, as a microphone sends it.
      await sleep(Math.max(0, started + (i + 1) * 80 - Date.now()));
    }
    await sleep(30); // the last frame is read by the server, not still in a socket buffer
    await kill9(first.child);
    socket.ws.terminate();

    const [{ frames }] = await query<{ frames: string | null }>(
      db.url,
      'SELECT sum(frames) AS frames FROM meter_events WHERE session_id = $1',
      [sessionId],
    );
    const billed = Number(frames ?? 0);
    const lostSeconds = (FRAMES_SENT - billed) * FRAME_S;
    expect(billed).toBeLessThanOrEqual(FRAMES_SENT);
    expect(lostSeconds).toBeLessThanOrEqual(1.0);

    // Another instance's reaper closes the orphan with the metered usage, no more and no less.
    const second = await startService(db.url);
    running.push(second.child);
    const deadline = Date.now() + 30_000;
    let session: { usage: { frames: number }; status: string; close_reason: string } | undefined;
    while (Date.now() < deadline) {
      const res = await fetch(`${second.baseUrl}/v1/sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      session = (await res.json()) as typeof session;
      if (session?.status === 'closed') break;
      await sleep(500);
    }
    expect(session).toMatchObject({ status: 'closed', close_reason: 'connection_lost', usage: { frames: billed } });
    await kill9(second.child);
  }, 120_000);
});
