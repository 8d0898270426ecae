/**
 * Memory per session under a control-message flood (issue 32): N live sessions through the real
 * service, each sending control messages as fast as the per-socket limit lets it (its burst at
 * once, then the sustained rate), and what a session costs the service before and during the flood.
 *
 *   npm run build && node dist/bench/control-flood.bench.js [--sessions 100] [--seconds 10]
 *
 * The service runs alone in its child process (support/socket/service.child.ts: createApp, the
 * scripted engine, metering to a scratch PostgreSQL database) with the production defaults of the
 * limit (SOCKET_CONTROL_BURST 200, SOCKET_CONTROL_PER_SECOND 50); this process is the load
 * generator. Each session starts (transcription, so no output audio), sends one 80 ms frame of
 * audio a second (the idle rule would end a session that sends none), and floods mute/unmute:
 * half its burst at once, then 90% of the rate, each answered by an acknowledgement. Then each
 * sends one burst past the limit and must be closed with 1008.
 *
 * Memory: heap + Buffers the service retains after a full GC (child-protocol.ts) and its RSS
 * (/proc), idle, with the sessions open and quiet, during the flood, and after the over-limit
 * closes; per session = (figure − idle) / N. Target: the flood adds less than 64 KiB a session to
 * what a quiet session retains, no session is closed by the flood, and every over-limit burst
 * ends in 1008. BENCH_DATABASE_URL overrides the local PostgreSQL server.
 * Results: bench/results/control-flood.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { cpuSeconds, rssMb } from './support/proc-usage';
import { round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { ServerProcess } from './support/socket/server-process';

/** The service's defaults (src/config/environment.ts): the flood runs just under them. */
const CONTROL_BURST = 200;
const CONTROL_PER_SECOND = 50;
/**
 * Half the burst at once, then 90% of the rate. The bucket runs on the service's clock: a message
 * taken late (a busy service reads a burst and the slices sent after it together) spends tokens the
 * client's schedule already counted as refilled; at 90% of the burst a lag of half a second on a
 * loaded machine closed a third of the sockets. Half the burst leaves about 2 s for that lag.
 */
const FLOOD_BURST = Math.floor(CONTROL_BURST * 0.5);
const FLOOD_PER_SECOND = CONTROL_PER_SECOND * 0.9;
const FRAME = Buffer.alloc(3840).toString('base64');
/** What the flood may add to a session's retained memory, KiB. */
const TARGET_ADDED_KIB_PER_SESSION = 64;

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

interface Memory {
  retainedMb: number;
  rssMb: number;
}

class FloodSocket {
  answers = 0;
  closeCode: number | null = null;
  closeReason = '';
  /** Control messages sent in the flood. */
  sent = 0;
  private floodStartedAt: number | null = null;
  private toggle = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const type = (JSON.parse(data.toString()) as { type: string }).type;
      if (type === 'session.input_audio.muted' || type === 'session.input_audio.unmuted') this.answers++;
    });
    ws.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
    });
    ws.on('error', () => undefined);
  }

  static async open(url: string, authorization: string): Promise<FloodSocket> {
    const socket = new FloodSocket(new WebSocket(url, { headers: { authorization } }));
    await new Promise((resolve, reject) => {
      socket.ws.once('open', resolve);
      socket.ws.once('error', reject);
    });
    const started = new Promise<void>((resolve) =>
      socket.ws.on('message', (data: Buffer) => {
        if (data.toString().includes('"session.started"')) resolve();
      }),
    );
    socket.ws.send(JSON.stringify({ type: 'session.start', session: { model: 'vendor-asr-streaming' } }));
    await started;
    socket.audio(); // the idle rule counts from here: the flood's audio keeps it away
    return socket;
  }

  control(count: number): void {
    for (let i = 0; i < count && this.ws.readyState === WebSocket.OPEN; i++) {
      this.toggle = !this.toggle;
      this.ws.send(JSON.stringify({ type: this.toggle ? 'session.input_audio.mute' : 'session.input_audio.unmute' }));
      this.sent++;
    }
  }

  /**
   * Its own schedule from its own burst: a common one would make the sockets whose burst went out
   * last send the slices they missed on top of it, which is over the limit.
   */
  pace(nowMs: number): void {
    if (this.floodStartedAt === null) {
      this.floodStartedAt = nowMs;
      return this.control(FLOOD_BURST);
    }
    this.control(Math.floor(FLOOD_BURST + (FLOOD_PER_SECOND * (nowMs - this.floodStartedAt)) / 1000) - this.sent);
  }

  audio(): void {
    if (this.ws.readyState === WebSocket.OPEN)
      this.ws.send(JSON.stringify({ type: 'session.input_audio.append', audio: FRAME }));
  }
}

async function memoryOf(service: ServerProcess): Promise<Memory> {
  const stats = await service.stats('read');
  return { retainedMb: round(stats.retainedMb, 2), rssMb: round(rssMb(service.pid) ?? 0, 1) };
}

const perSessionKib = (figure: Memory, idle: Memory, n: number) => ({
  retainedKib: round(((figure.retainedMb - idle.retainedMb) * 1024) / n, 1),
  rssKib: round(((figure.rssMb - idle.rssMb) * 1024) / n, 1),
});

async function main(): Promise<void> {
  const sessions = arg('sessions', 100);
  const seconds = arg('seconds', 10);
  const database = await createScratchDatabase('control_flood');
  const workDir = mkdtempSync(join(tmpdir(), 'continuum-control-flood-'));
  let service: ServerProcess | null = null;
  try {
    service = await ServerProcess.start('service', { args: [database.url], logFile: join(workDir, 'service.log') });
    const { url, ready } = service;
    await sleep(1000);
    const idle = await memoryOf(service);

    const sockets: FloodSocket[] = [];
    while (sockets.length < sessions) {
      const batch = Math.min(10, sessions - sockets.length);
      sockets.push(
        ...(await Promise.all(Array.from({ length: batch }, () => FloodSocket.open(url, ready.authorization)))),
      );
    }
    await sleep(1000);
    const quiet = await memoryOf(service);

    // The flood: each socket's burst, then the sustained rate in 100 ms slices; a frame of audio a second.
    const cpuBefore = cpuSeconds(service.pid) ?? 0;
    const floodStarted = Date.now();
    let during: Memory | null = null;
    for (let slice = 0; slice <= seconds * 10; slice++) {
      await sleep(floodStarted + slice * 100 - Date.now());
      for (const s of sockets) s.pace(Date.now());
      if (slice % 10 === 0) for (const s of sockets) s.audio();
      // Read in the middle of the flood, with the messages of the last slices still in flight.
      if (slice === seconds * 5) during = await memoryOf(service);
    }
    const floodSeconds = (Date.now() - floodStarted) / 1000;
    const cpu = (cpuSeconds(service.pid) ?? 0) - cpuBefore;
    await sleep(500);
    const sent = sockets.reduce((n, s) => n + s.sent, 0);
    const answers = sockets.reduce((n, s) => n + s.answers, 0);
    const closedByFlood = sockets.filter((s) => s.closeCode !== null).length;
    const floodCloses: Record<string, number> = {};
    for (const s of sockets) {
      const key = s.closeCode === null ? null : `${s.closeCode} ${s.closeReason}`;
      if (key !== null) floodCloses[key] = (floodCloses[key] ?? 0) + 1;
    }

    // Past the limit: every socket must be closed with a policy code.
    for (const s of sockets) s.control(CONTROL_BURST + 50);
    const deadline = Date.now() + 15_000;
    while (sockets.some((s) => s.closeCode === null) && Date.now() < deadline) await sleep(100);
    const policyCloses = sockets.filter((s) => s.closeCode === 1008).length;
    await sleep(2000);
    const after = await memoryOf(service);

    const added = perSessionKib(during!, quiet, sessions);
    const results = {
      sessions,
      floodSeconds: round(floodSeconds, 1),
      controlMessagesSent: Math.round(sent),
      answersReceived: answers,
      messagesPerSecond: round(sent / floodSeconds, 0),
      serviceCpuSecondsPerThousandMessages: round((cpu / sent) * 1000, 4),
      memory: { idle, quiet, during: during!, after },
      perSession: {
        quiet: perSessionKib(quiet, idle, sessions),
        during: perSessionKib(during!, idle, sessions),
        addedByFlood: added,
        afterClose: perSessionKib(after, idle, sessions),
      },
      closedByFlood,
      floodCloses,
      policyCloses,
    };
    const met = added.retainedKib < TARGET_ADDED_KIB_PER_SESSION && closedByFlood === 0 && policyCloses === sessions;
    writeReport({
      name: 'control-flood',
      headline:
        `${sessions} sessions flooding at the control limit: ${results.perSession.quiet.retainedKib} KiB retained a ` +
        `session quiet, ${results.perSession.during.retainedKib} KiB during the flood (RSS ` +
        `${results.perSession.during.rssKib} KiB); ${policyCloses}/${sessions} closed 1008 past it`,
      results,
      targets: { addedRetainedKibPerSession: TARGET_ADDED_KIB_PER_SESSION, closedByFlood: 0, policyCloses: sessions },
      met,
    });
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    for (const s of sockets) s.ws.terminate();
  } finally {
    await service?.stop();
    await database.drop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `control-flood bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
