/**
 * Conversation sessions turned against the service (issue 40): a project's full share of sockets on
 * one instance (PROJECT_STREAMS_PER_INSTANCE, 6 of the default 8 streams) attack at once, and the
 * service must keep answering everyone else, stay within its memory budget, and send the chat
 * upstream no request over the context budget.
 *
 *   npm run build && node dist/bench/context-attack.bench.js [--seconds 20] [--label before]
 *
 * The real service runs as its own process (dist/src/main.js, a scratch PostgreSQL database) with
 * vendor-voicechat served by the cascade; its chat upstream is a counting stand-in in this process
 * (src/engines/cascade/testing/counting-chat-server.ts: it counts each request's body bytes, answers
 * "OK." at once, and parses nothing), its speech
 * upstream the fake speech server (unused: every response is text only). Each session, in a loop:
 * - conversation.item.create of a 100,000-character message (CJK text on every other session:
 *   three UTF-8 bytes a character), the conversation growing by one such item each round;
 * - an out-of-band response.create naming that item 512 times in `input`;
 * - a response.create over the whole conversation.
 * Meanwhile GET /healthz every 25 ms (as another tenant's probe), and the service's RSS every 100 ms;
 * the same probe for 5 s before the attack, with the sessions open and quiet, is the baseline (the
 * machine is shared: its load weighs on both).
 *
 * Figures: /healthz p99 and max during the attack; RSS per session ((peak − idle) / sessions); bytes
 * upstream per response (max and mean); whether the process lived. Targets: /healthz max < 250 ms,
 * no request over the budget's byte bound (8 bytes a budgeted token, plus the body's fixed fields),
 * RSS per session within the documented budget. --label names the report (context-attack-<label>.json)
 * to keep a run of other code beside the current one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { startCountingChatServer } from '../src/engines/cascade/testing/counting-chat-server';
import { startFakeSpeechServer } from '../src/engines/cascade/testing/fake-speech-server';
import { rssMb } from './support/proc-usage';
import { round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';
import { ServiceProcess } from './support/service-process';
import { distribution } from './support/stats';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SECONDS = Number(arg('seconds', '20'));
const LABEL = arg('label', '');
const KEY = `wk_${'b'.repeat(40)}`;
/** The defaults (src/config/environment.ts): 8 engine streams, a project's share 6 of them. */
const SESSIONS = 6;
/** The defaults of the budget (docs/configuration.md): CONVERSATION_CONTEXT_TOKENS, its byte bound. */
const CONTEXT_TOKENS = 32_000;
const BYTES_PER_TOKEN = 8;
const BODY_FIXED_BYTES = 4096;
const TARGETS = {
  healthzMaxUnderMs: 250,
  maxRequestBytes: CONTEXT_TOKENS * BYTES_PER_TOKEN + BODY_FIXED_BYTES,
  rssPerSessionUnderMb: 16,
};
const ITEM_CHARS = 100_000;
const REFERENCES = 512;
const ANSWER_WAIT_MS = 60_000;
const QUIET_SECONDS = 5;
/** CONVERSATION_RESPONSE_PER_MINUTE's default, 30: one response's refill. */
const RATE_LIMIT_WAIT_MS = 2000;

class Attacker {
  events: Record<string, any>[] = [];
  closeCode: number | null = null;
  lastError: string | null = null;
  responses = 0;
  refusals = new Map<string, number>();
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString()) as Record<string, any>;
      // Only what the attack waits on is kept: an echoed 300 KB item would weigh on this process.
      if (event.type === 'error') {
        const code = String(event.error?.code);
        this.lastError = code;
        this.refusals.set(code, (this.refusals.get(code) ?? 0) + 1);
      }
      if (event.type === 'response.done') this.responses++;
      this.events.push({ type: event.type });
      for (const wake of this.waiters.splice(0)) wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      for (const wake of this.waiters.splice(0)) wake();
    });
    ws.on('error', () => undefined);
  }

  /** Sends `event`, then waits for one of `types` (or an error) after it. */
  async ask(event: object, types: string[]): Promise<string | null> {
    const from = this.events.length;
    this.ws.send(JSON.stringify(event));
    const deadline = Date.now() + ANSWER_WAIT_MS;
    while (this.closeCode === null && Date.now() < deadline) {
      const found = this.events.slice(from).find((e) => e.type === 'error' || types.includes(e.type));
      if (found) return found.type as string;
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 1000);
      });
    }
    return null;
  }
}

async function open(wsUrl: string): Promise<Attacker> {
  const ws = new WebSocket(`${wsUrl}/v1/realtime?model=vendor-voicechat`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  const attacker = new Attacker(ws);
  await new Promise<void>((resolve, reject) => ws.once('open', resolve).once('error', reject));
  if (
    (await attacker.ask(
      {
        type: 'session.update',
        session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
      },
      ['session.updated'],
    )) !== 'session.updated'
  )
    throw new Error('session.update was not answered');
  return attacker;
}

/**
 * The attack as hard as the limits let it go on: a response refused `rate_limit_exceeded` waits out the
 * refill (RATE_LIMIT_WAIT_MS) instead of hammering on, since a flood of refused messages gets the socket
 * closed for its control-message rate within a second or two and would leave nothing to measure.
 */
async function attack(attacker: Attacker, index: number, until: number): Promise<void> {
  const letter = index % 2 === 0 ? 'word ' : '語';
  const respond = async (event: object) => {
    if ((await attacker.ask(event, ['response.done'])) === 'error' && attacker.lastError === 'rate_limit_exceeded')
      await sleep(RATE_LIMIT_WAIT_MS);
  };
  for (let round = 0; Date.now() < until && attacker.closeCode === null; round++) {
    const id = `item_${index}_${round}`;
    const text = letter.repeat(Math.ceil(ITEM_CHARS / letter.length)).slice(0, ITEM_CHARS);
    const item = { id, type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
    await attacker.ask({ type: 'conversation.item.create', item }, ['conversation.item.added']);
    const input = Array.from({ length: REFERENCES }, () => ({ type: 'item_reference', id }));
    await respond({ type: 'response.create', response: { conversation: 'none', input } });
    await respond({ type: 'response.create' });
  }
}

async function main(): Promise<void> {
  const database = await createScratchDatabase('context_attack');
  const chat = await startCountingChatServer();
  const speech = await startFakeSpeechServer(() => ({ msPerChar: 1, chunkMs: 100, chunkEveryMs: 0 }));
  const engines = {
    engines: {
      listen: { kind: 'scripted', maxStreams: 8 },
      voicechat: {
        kind: 'cascade',
        listener: 'listen',
        languages: ['en'],
        chat: { url: chat.url, model: 'stand-in', timeoutMs: 60_000 },
        speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart' },
      },
    },
    models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
  };
  const service = await ServiceProcess.start('context-attack', {
    DATABASE_URL: database.url,
    LOG_LEVEL: 'error',
    STARTING_API_KEY: KEY,
    ENGINES_JSON: JSON.stringify(engines),
    SESSION_IDLE_SECONDS: '0',
    MAX_SESSION_SECONDS: String(SECONDS + 120),
  });
  try {
    const attackers: Attacker[] = [];
    for (let i = 0; i < SESSIONS; i++) attackers.push(await open(service.wsUrl));
    await sleep(1000);
    const idleRss = rssMb(service.pid) ?? 0;

    let probing = true;
    let healthz: number[] = [];
    let healthzFailures = 0;
    const probe = async () => {
      while (probing) {
        const at = performance.now();
        try {
          const res = await fetch(`${service.baseUrl}/healthz`, { signal: AbortSignal.timeout(30_000) });
          await res.arrayBuffer();
          if (!res.ok) healthzFailures++;
        } catch {
          healthzFailures++;
        }
        healthz.push(performance.now() - at);
        await sleep(25);
      }
    };
    // The same probe with the sessions open and quiet: what the shared machine gives /healthz anyway.
    const quietProbe = probe();
    await sleep(QUIET_SECONDS * 1000);
    probing = false;
    await quietProbe;
    const quiet = distribution(healthz);
    healthz = [];
    probing = true;
    const attackProbe = probe();
    let peakRss = idleRss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(service.pid) ?? 0)), 100);

    const started = Date.now();
    await Promise.all(attackers.map((a, i) => attack(a, i, started + SECONDS * 1000)));
    const attackSeconds = (Date.now() - started) / 1000;
    probing = false;
    await attackProbe;
    clearInterval(sampler);

    const alive = await fetch(`${service.baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    const requests = chat.requests;
    const responses = attackers.reduce((n, a) => n + a.responses, 0);
    const refusals: Record<string, number> = {};
    for (const a of attackers) for (const [code, n] of a.refusals) refusals[code] = (refusals[code] ?? 0) + n;
    const upstreamBytes = requests.reduce((n, b) => n + b, 0);
    const results = {
      sessions: SESSIONS,
      attackSeconds: round(attackSeconds, 1),
      healthzMs: distribution(healthz),
      healthzQuietMs: quiet,
      healthzFailures,
      rssMb: { idle: round(idleRss, 1), peak: round(peakRss, 1) },
      rssPerSessionMb: round((peakRss - idleRss) / SESSIONS, 1),
      upstream: {
        requests: requests.length,
        maxRequestBytes: Math.max(0, ...requests),
        meanRequestBytes: requests.length ? Math.round(upstreamBytes / requests.length) : 0,
        totalMb: round(upstreamBytes / 2 ** 20, 1),
      },
      responses,
      refusals,
      closedSockets: attackers.filter((a) => a.closeCode !== null).map((a) => a.closeCode),
      processLived: alive,
    };
    // Sockets the service closed early ended the attack there: the figures would then not be the attack's.
    const met =
      alive &&
      results.attackSeconds >= SECONDS * 0.95 &&
      results.healthzMs.max < TARGETS.healthzMaxUnderMs &&
      results.upstream.maxRequestBytes <= TARGETS.maxRequestBytes &&
      results.rssPerSessionMb < TARGETS.rssPerSessionUnderMb;
    writeReport({
      name: LABEL ? `context-attack-${LABEL}` : 'context-attack',
      headline:
        `${SESSIONS} attacking sessions for ${results.attackSeconds} s: /healthz p99 ${results.healthzMs.p99} ms, max ${results.healthzMs.max} ms; ` +
        `${results.rssPerSessionMb} MB RSS a session; upstream max ${round(results.upstream.maxRequestBytes / 1024, 1)} KiB ` +
        `a request (${requests.length} requests, ${results.upstream.totalMb} MB)`,
      results,
      targets: TARGETS,
      met,
    });
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    for (const a of attackers) a.ws.terminate();
  } finally {
    service.signal('SIGKILL');
    await service.waitExit().catch(() => undefined);
    await chat.close();
    await speech.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
