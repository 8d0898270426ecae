/**
 * Replicas benchmark: several built service processes (`node dist/src/main.js`) on one scratch
 * PostgreSQL database, as pods of one Deployment.
 *
 *   npm run build && node dist/bench/replicas.bench.js [--quick]
 *
 * - DELETE → close across replicas: a socket held by B, DELETE sent to A, time until the client has
 *   `session.closed` (LISTEN/NOTIFY), beside the same on one replica and with SESSION_SIGNALS=heartbeat.
 * - kill -9 → closed and billed: sessions streaming on a replica that is killed, time until another
 *   replica's reaper has closed them all as connection_lost with their metered frames, with the default
 *   reaper settings and with a short heartbeat timeout.
 * - The cost of LISTEN/NOTIFY: the REST load (client secrets, autocannon) and a socket load (sessions
 *   opened, streamed, closed) against one replica with SESSION_SIGNALS=auto and =heartbeat, alternating.
 * Results: bench/results/replicas.json. BENCH_DATABASE_URL overrides the local server.
 */
import { loadavg } from 'node:os';
import { Client } from 'pg';
import WebSocket from 'ws';
import { writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { ServiceProcess } from './support/service-process';
import { distribution } from './support/stats';

type AutocannonResult = { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number };
const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;

const QUICK = process.argv.includes('--quick');
const KEY = `wk_${'B3nchRepl1cas'.repeat(3)}`;
const START = JSON.stringify({
  type: 'session.start',
  session: { model: 'vendor-voicechat', audio: { output: { voice: 'aria' } } },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.now();
const TONE = (() => {
  const samples = 24_000 * 0.4; // 400 ms of pcm16 at 24 kHz
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24_000)), i * 2);
  return JSON.stringify({ type: 'session.input_audio.append', audio: pcm.toString('base64') });
})();

/** A live session on a replica: opened with the API key, started. */
class LiveSocket {
  readonly closed: Promise<number>;
  sessionId = '';
  private readonly waiters = new Map<string, (event: { type: string }) => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, binary) => {
      if (binary) return;
      const event = JSON.parse(data.toString()) as { type: string };
      this.waiters.get(event.type)?.(event);
      this.waiters.delete(event.type);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  }

  static async start(on: ServiceProcess): Promise<LiveSocket> {
    const ws = new WebSocket(`${on.wsUrl}/v1/live/sessions`, { headers: { authorization: `Bearer ${KEY}` } });
    const socket = new LiveSocket(ws);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const started = socket.next('session.started');
    ws.send(START);
    socket.sessionId = ((await started) as unknown as { session: { id: string } }).session.id;
    return socket;
  }

  next(type: string): Promise<{ type: string }> {
    return new Promise((resolve) => this.waiters.set(type, resolve));
  }
}

const del = (on: ServiceProcess, id: string) =>
  fetch(`${on.baseUrl}/v1/sessions/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } });

/** DELETE on `via` of sessions held by `holder`, one after another (or all at once): ms to `session.closed`. */
async function deleteToClose(holder: ServiceProcess, via: ServiceProcess, count: number, together = false) {
  const one = async (socket: LiveSocket) => {
    const closedEvent = socket.next('session.closed');
    const sent = now();
    const res = await del(via, socket.sessionId);
    if (res.status !== 204) throw new Error(`DELETE answered ${res.status}`);
    await closedEvent;
    const ms = now() - sent;
    await socket.closed;
    return ms;
  };
  if (together) {
    const sockets = await Promise.all(Array.from({ length: count }, () => LiveSocket.start(holder)));
    return Promise.all(sockets.map(one));
  }
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await one(await LiveSocket.start(holder)));
  return samples;
}

async function killToBilled(env: Record<string, string>, pg: Client, sessions: number) {
  const victim = await ServiceProcess.start('victim', env);
  try {
    return await loadAndKill(victim, pg, sessions);
  } finally {
    await victim.stop();
  }
}

async function loadAndKill(victim: ServiceProcess, pg: Client, sessions: number) {
  const sockets = await Promise.all(Array.from({ length: sessions }, () => LiveSocket.start(victim)));
  // Real-time audio past the first meter batch (62 frames = 4.96 s).
  for (let i = 0; i < 14; i++) {
    for (const socket of sockets) socket.ws.send(TONE);
    await sleep(400);
  }
  const ids = sockets.map((s) => s.sessionId);
  for (let waited = 0; waited < 10_000; waited += 100) {
    const { rowCount } = await pg.query('SELECT DISTINCT session_id FROM meter_events WHERE session_id = ANY($1)', [
      ids,
    ]);
    if (rowCount === sessions) break;
    await sleep(100);
  }
  victim.signal('SIGKILL');
  const killed = now();
  await victim.waitExit();
  for (;;) {
    const { rows } = await pg.query(
      `SELECT count(*)::int AS n FROM sessions WHERE id = ANY($1) AND status = 'closed' AND close_reason = 'connection_lost'`,
      [ids],
    );
    if (rows[0].n === sessions) break;
    if (now() - killed > 120_000) throw new Error('sessions of the killed replica were not closed in 120 s');
    await sleep(50);
  }
  const closedMs = now() - killed;
  const { rows } = await pg.query(
    `SELECT count(*)::int AS n FROM sessions s WHERE id = ANY($1)
       AND frames = (SELECT coalesce(sum(frames), 0) FROM meter_events m WHERE m.session_id = s.id)`,
    [ids],
  );
  for (const socket of sockets) socket.ws.terminate();
  return { closedMs: Math.round(closedMs), sessions, billedOnce: rows[0].n === sessions };
}

async function restLoad(on: ServiceProcess, seconds: number) {
  const options = {
    url: `${on.baseUrl}/v1/live/client_secrets`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ expires_after: { anchor: 'created_at', seconds: 10 } }),
    connections: 20,
  };
  await autocannon({ ...options, duration: 2 });
  const r = await autocannon({ ...options, duration: seconds });
  return {
    requestsPerSecond: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
  };
}

/** Concurrent loops of: open, start, 400 ms of audio, first transcript, close. */
async function socketLoad(on: ServiceProcess, seconds: number, concurrency: number) {
  const cycles: number[] = [];
  const until = now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (now() < until) {
        const began = now();
        const socket = await LiveSocket.start(on);
        const heard = socket.next('session.input_transcript.delta');
        socket.ws.send(TONE);
        await heard;
        socket.ws.send(JSON.stringify({ type: 'session.close' }));
        await socket.closed;
        cycles.push(now() - began);
      }
    }),
  );
  return { sessionsPerSecond: Math.round((cycles.length / seconds) * 10) / 10, cycleMs: distribution(cycles) };
}

async function main(): Promise<void> {
  const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);
  const database = await createScratchDatabase('replicas');
  const pg = new Client({ connectionString: database.url });
  const env = {
    DATABASE_URL: database.url,
    SPEECH_ENGINE: 'scripted',
    LOG_LEVEL: 'warn',
    STARTING_API_KEY: KEY,
    RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
    CONCURRENT_SESSIONS_LIMIT: '100000',
    ENGINE_MAX_STREAMS: '1000',
  };
  const running: ServiceProcess[] = [];
  const start = async (name: string, extra: Record<string, string> = {}) => {
    const p = await ServiceProcess.start(name, { ...env, ...extra });
    running.push(p);
    return p;
  };
  try {
    const [a, b] = [await start('A'), await start('B')];
    const c = await start('C', { SESSION_SIGNALS: 'heartbeat' });
    await pg.connect();
    process.stdout.write('DELETE → close\n');
    const n = QUICK ? 20 : 100;
    await deleteToClose(b, a, 5); // warm-up
    const across = distribution(await deleteToClose(b, a, n));
    const same = distribution(await deleteToClose(b, b, n));
    const acrossTogether = distribution(await deleteToClose(b, a, QUICK ? 20 : 50, true));
    const heartbeatOnly = distribution(await deleteToClose(c, a, 10, true));
    await Promise.all(running.splice(0).map((p) => p.stop()));

    process.stdout.write('kill -9 → closed and billed\n');
    // One replica stays up to reap; a victim per trial is started, loaded and killed.
    const tuned = { SESSION_HEARTBEAT_TIMEOUT_SECONDS: '11', SESSION_REAPER_INTERVAL_SECONDS: '1' };
    const tunedReaper = await start('reaper-tuned', tuned);
    const killTuned = [];
    for (let i = 0; i < (QUICK ? 1 : 3); i++) killTuned.push(await killToBilled({ ...env, ...tuned }, pg, 5));
    await tunedReaper.stop();
    running.splice(0);
    await start('reaper-default');
    const killDefault = QUICK ? [] : [await killToBilled(env, pg, 5)];
    await Promise.all(running.splice(0).map((p) => p.stop()));

    process.stdout.write('LISTEN/NOTIFY cost: REST and socket loads, auto vs heartbeat\n');
    const seconds = QUICK ? 4 : 8;
    const ab: {
      round: number;
      signals: string;
      rest: Awaited<ReturnType<typeof restLoad>>;
      socket: Awaited<ReturnType<typeof socketLoad>>;
    }[] = [];
    for (let round = 1; round <= (QUICK ? 1 : 3); round++) {
      const order = round % 2 ? ['auto', 'heartbeat'] : ['heartbeat', 'auto'];
      for (const signals of order) {
        const p = await start(`ab-${signals}`, { SESSION_SIGNALS: signals });
        const rest = await restLoad(p, seconds);
        const socket = await socketLoad(p, seconds, 20);
        ab.push({ round, signals, rest, socket });
        await p.stop();
        running.splice(0);
      }
    }
    const mean = (signals: string, pick: (r: (typeof ab)[number]) => number) => {
      const runs = ab.filter((r) => r.signals === signals);
      return runs.reduce((sum, r) => sum + pick(r), 0) / runs.length;
    };
    const restRatio =
      mean('auto', (r) => r.rest.requestsPerSecond) / mean('heartbeat', (r) => r.rest.requestsPerSecond);
    const socketRatio =
      mean('auto', (r) => r.socket.sessionsPerSecond) / mean('heartbeat', (r) => r.socket.sessionsPerSecond);
    const round2 = (x: number) => Math.round(x * 100) / 100;

    const killP = (runs: { closedMs: number }[]) => runs.map((r) => r.closedMs);
    const met = across.p99 < 1000 && killTuned.every((k) => k.billedOnce) && killDefault.every((k) => k.billedOnce);
    const path = writeReport({
      name: 'replicas',
      headline:
        `DELETE→close across replicas p50 ${across.p50} ms p99 ${across.p99} ms (heartbeat only p50 ${heartbeatOnly.p50} ms); ` +
        `kill -9→closed+billed ${killP(killTuned).join('/')} ms (timeout 11 s) ${killP(killDefault).join('/') || '-'} ms (defaults); ` +
        `LISTEN/NOTIFY on/off: REST ${round2(restRatio)}, socket ${round2(socketRatio)}`,
      results: {
        deleteToCloseMs: {
          acrossReplicas: across,
          sameReplica: same,
          acrossReplicas50AtOnce: acrossTogether,
          heartbeatOnly,
        },
        killToClosedAndBilled: { heartbeatTimeout11sReaper1s: killTuned, defaults: killDefault },
        listenNotifyCost: {
          runs: ab,
          restThroughputRatio: round2(restRatio),
          socketThroughputRatio: round2(socketRatio),
        },
        quick: QUICK,
        loadAverageBefore: loadBefore,
      },
      targets: { deleteAcrossReplicasP99Ms: 1000, billedOnce: true, listenNotifyRatioWithinNoise: '0.9..1.1' },
      met,
    });
    process.stdout.write(`${path}\n`);
  } finally {
    await Promise.all(running.map((p) => p.stop()));
    await pg.end().catch(() => undefined);
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `replicas bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
