import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  startCountingChatServer,
  type CountingChatServer,
} from '../../src/engines/cascade/testing/counting-chat-server';
import { startFakeSpeechServer } from '../../src/engines/cascade/testing/fake-speech-server';
import type { RecordingServer } from '../../src/engines/cascade/testing/recording-server';
import { play, type Played } from '../support/fuzz-socket-player';
import { script, type Script } from '../support/socket-fuzz-scripts';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/**
 * A stateful fuzz of every socket dialect against the real gateway: seeded scripts (valid and invalid
 * events, bursts past the control limit, audio between them, odd binary frames, closes mid-start,
 * silent clients, reconnects; conversation sequences that grow context: large items, repeated and
 * many references, whole-context responses) played several at a time on one app, then the whole run is checked:
 * the process lived (nothing escaped), every session is closed with a reason and usage that equals
 * its meter events, no socket is left open, no chat request passed the context budget, and the heap
 * did not grow with the run.
 *
 * FUZZ_SEED replays a run; FUZZ_SOCKET_SCRIPTS sets how many scripts each database target plays.
 */
const SCRIPTS = Number(process.env.FUZZ_SOCKET_SCRIPTS ?? 300);
const AT_ONCE = 8;
const CONTROL_BURST = 200;
/** Heap growth allowed across the run, after a warm-up and a full collection on both sides. */
const HEAP_GROWTH_BOUND = 32 * 1024 * 1024;
const FORBIDDEN = /internal_error|engine_error|ENGINE_ERROR|INTERNAL_ERROR/;
const CLOSE_REASONS = ['close_requested', 'expired', 'connection_lost'];
/**
 * A conversation's budget, small so that the scripts pass it: 40,000-character items, 512 references,
 * 20,000-character instructions. No chat request may pass its byte bound (docs/api.md, "Hostile clients").
 */
const CONTEXT_TOKENS = 4000;
const RETAINED_CHARS = 100_000;
const MAX_CHAT_REQUEST_BYTES = 8 * CONTEXT_TOKENS + 4096;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Runs `work` on every item, `atOnce` at a time, in order of start. */
async function pool<T, R>(items: readonly T[], atOnce: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]);
  };
  await Promise.all(Array.from({ length: atOnce }, lane));
  return results;
}

/** What one client saw that the service must never do, whatever the client sent. */
function clientProblems(p: Played): string[] {
  const problems: string[] = [];
  const { dialect } = p.script;
  if (p.refusal !== null) problems.push(`refused at the handshake: ${JSON.stringify(p.refusal)}`);
  for (const e of p.events) if (FORBIDDEN.test(JSON.stringify(e))) problems.push(`sent ${JSON.stringify(e)}`);
  const code = p.closeCode;
  const idle = code === 1011 && /idle_timeout|NET-0001/.test(p.closeReason);
  // 1005: the client's own close without a code echoed; 1006: the client dropped the connection.
  if (code === null) problems.push('never closed');
  else if (![1000, 1005, 1006, 1007, 1008, 1009].includes(code) && !idle)
    problems.push(`closed ${code} ${p.closeReason}`);
  // A session the idle rule had already ended (its pauses outlasted SESSION_IDLE_SECONDS on a slow
  // machine) never took the burst: its close is the idle rule's.
  if (p.overLimitBurst && !idle) {
    if (p.closeCode !== 1008 || p.closedAfterBurstMs === null)
      problems.push(`a burst past the control limit did not end in 1008 (closed ${code} ${p.closeReason})`);
    const told = p.events.some((e) => e.type === 'error' && e.error?.code === 'rate_limit_exceeded');
    if ((dialect === 'live' || dialect === 'realtime' || dialect === 'conversation') && !told)
      problems.push('a burst past the control limit got no rate_limit_exceeded error');
  }
  if (p.reconnectRefusal !== null && p.reconnectRefusal.status >= 500)
    problems.push(`a reconnect was refused with ${JSON.stringify(p.reconnectRefusal)}`);
  return problems;
}

const summary = (p: Played) =>
  `${p.script.dialect}/${p.script.credential}/${p.script.ending} steps=${p.script.steps
    .map((s) => (s.kind === 'burst' ? `burst${s.count}×${s.text.slice(0, 80)}` : s.kind))
    .join(',')}`;

interface Listed {
  id: string;
  status: string;
  close_reason: string | null;
  usage: { frames: number };
}

describe.each(databaseTargets())('stateful socket fuzzing on %s', (target) => {
  let t: TestApp;
  let apiKey: string;
  let chat: CountingChatServer;
  let speech: RecordingServer;
  const escaped: unknown[] = [];
  const onEscape = (reason: unknown) => escaped.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onEscape);
    process.on('uncaughtException', onEscape);
    // vendor-voicechat is the cascade on a chat stand-in that counts request bytes, so conversation
    // scripts' responses reach an upstream.
    chat = await startCountingChatServer();
    speech = await startFakeSpeechServer(() => ({ msPerChar: 1, chunkMs: 100, chunkEveryMs: 0 }));
    const engines = {
      engines: {
        listen: { kind: 'scripted', maxStreams: 1000 },
        voicechat: {
          kind: 'cascade',
          listener: 'listen',
          languages: ['en'],
          chat: { url: chat.url, model: 'stand-in', maxTokens: 16 },
          speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart' },
        },
      },
      models: { 'vendor-asr-streaming': 'listen', 'vendor-voicechat': 'voicechat' },
    };
    t = await startTestApp(target, {
      env: {
        ENGINES_JSON: JSON.stringify(engines),
        CONVERSATION_CONTEXT_TOKENS: String(CONTEXT_TOKENS),
        CONVERSATION_RETAINED_CHARS: String(RETAINED_CHARS),
        RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
        CONCURRENT_SESSIONS_LIMIT: '100000',
        ENGINE_MAX_STREAMS: '1000',
        SESSION_IDLE_SECONDS: '2',
        SOCKET_CONTROL_BURST: String(CONTROL_BURST),
        SOCKET_CONTROL_PER_SECOND: '50',
      },
    });
    ({ apiKey } = await t.newProject('fuzzed'));
  });
  afterAll(async () => {
    process.off('unhandledRejection', onEscape);
    process.off('uncaughtException', onEscape);
    await t?.close();
    await chat?.close();
    await speech?.close();
  });

  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${apiKey}` } });
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    return res;
  };

  async function listSessions(): Promise<Listed[]> {
    const all: Listed[] = [];
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const page = (await get(`/v1/sessions?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).json() as {
        data: Listed[];
        next_cursor: string | null;
      };
      all.push(...page.data);
      cursor = page.next_cursor;
    }
    return all;
  }

  async function openSockets(): Promise<number> {
    const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
    return [...text.matchAll(/^continuum_sessions_open\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  }

  it(`plays ${SCRIPTS} seeded scripts; the process, every session's record and the heap hold`, async () => {
    const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
    const scripts: Script[] = fc.sample(script, { seed, numRuns: SCRIPTS });
    const ctx = { t, apiKey, controlBurst: CONTROL_BURST };
    try {
      // A warm-up, so that the heap measured next holds what the first sockets of each kind load once.
      await pool(scripts.slice(0, AT_ONCE), AT_ONCE, (s) => play(s, ctx));
      const heapBefore = heapUsed();
      const started = Date.now();
      const played = await pool(scripts.slice(AT_ONCE), AT_ONCE, (s) => play(s, ctx));
      const elapsedMs = Date.now() - started;

      const problems = played.flatMap((p) => clientProblems(p).map((problem) => `${summary(p)}: ${problem}`));
      expect(problems).toEqual([]);

      // Every socket is over on the server: the gauge is back to 0 and no session is still active.
      await waitFor(async () => (await openSockets()) === 0, 20_000);
      await waitFor(async () => (await listSessions()).every((s) => s.status !== 'active'), 20_000);

      const sessions = await listSessions();
      const byId = new Map(sessions.map((s) => [s.id, s]));
      const seen = new Set(played.flatMap((p) => p.sessionIds));
      expect([...seen].filter((id) => !byId.has(id))).toEqual([]);
      const meters = (await get('/v1/usage/normalized-meter-events')).body
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as { session_id: string; frames: number });
      const metered = new Map<string, number>();
      for (const m of meters) metered.set(m.session_id, (metered.get(m.session_id) ?? 0) + m.frames);
      // Unused secrets stay pending until they lapse; every session that ran is closed with a reason.
      const ran = sessions.filter((s) => s.status !== 'pending');
      expect(ran.filter((s) => s.status !== 'closed' || !CLOSE_REASONS.includes(s.close_reason ?? ''))).toEqual([]);
      expect(ran.filter((s) => s.usage.frames !== (metered.get(s.id) ?? 0))).toEqual([]);
      expect(ran.some((s) => s.usage.frames > 0)).toBe(true);

      // Conversation scripts reached the chat upstream, and no request passed the budget.
      expect(chat.requests.length).toBeGreaterThan(0);
      expect(Math.max(...chat.requests)).toBeLessThanOrEqual(MAX_CHAT_REQUEST_BYTES);

      const heapGrowth = heapUsed() - heapBefore;
      expect(heapGrowth).toBeLessThan(HEAP_GROWTH_BOUND);

      expect(escaped).toEqual([]);
      expect(t.logs.filter((line) => /escaped/.test(line))).toEqual([]);
      expect(t.logs.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);

      const messages = played.reduce((n, p) => n + p.sent, 0);
      const reasons = new Map<string, number>();
      for (const s of ran) reasons.set(s.close_reason!, (reasons.get(s.close_reason!) ?? 0) + 1);
      process.stdout.write(
        `socket fuzz on ${target}: seed ${seed}, ${played.length} scripts, ${messages} messages, ` +
          `${ran.length} sessions ${JSON.stringify(Object.fromEntries(reasons))}, ` +
          `${played.filter((p) => p.overLimitBurst).length} over the control limit, ${chat.requests.length} chat ` +
          `requests (largest ${Math.max(...chat.requests)} B), ${elapsedMs} ms, ` +
          `heap ${(heapGrowth / 2 ** 20).toFixed(1)} MiB\n`,
      );
    } catch (error) {
      if (error instanceof Error) error.message = `${error.message}\nReplay with FUZZ_SEED=${seed}`;
      throw error;
    }
  }, 180_000);
});
