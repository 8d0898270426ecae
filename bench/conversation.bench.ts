/**
 * Voice to voice through the Realtime conversation path (issue 33), beside the live voicechat path in
 * the same run: the service in this process with `vendor-voicechat` served by the cascade, its chat
 * and speech upstreams fake OpenAI-compatible servers on local sockets that answer at once
 * (src/engines/cascade/testing/), and the scripted engine as the listener (it hears loudness, so
 * recognition costs nothing and the figures are the session layer's and the cascade's).
 *
 *   npm run build && node dist/bench/conversation.bench.js [--quick]
 *
 * Two sessions are open at once, each with a microphone streaming 40 ms chunks at real-time pace
 * without a break (silence between turns), and their turns alternate, so that load on the shared
 * machine falls on both paths alike:
 * - conversation: `/v1/realtime?model=vendor-voicechat`, as a Realtime client (input_audio_buffer.append,
 *   server_vad with create_response: the session core asks the cascade for each answer);
 * - live: `/v1/live/sessions` (binary audio, server VAD with `end_of_turn: null`: the cascade answers
 *   each turn by itself).
 * Both hear the same clip (480 ms of voice) and end turns on the same 240 ms of silence (three engine
 * frames: a turn ends on a frame boundary, so the wait is the same on both).
 *
 * Per turn, on one clock (performance.now() of this process: client, engine tap, fakes):
 *   voice to voice   last voiced chunk sent → the first answer audio delta received
 *                    (`response.output_audio.delta` / `session.output_audio.delta`)
 *   end-of-turn wait last voiced chunk sent → the chunk that completed the VAD's silence sent (the
 *                    last one before the engine's speech_stopped): the service cannot end the turn
 *                    before that audio arrives
 *   upstreams        the chat fake's own time (request arrival → its answer written, or the speech
 *                    request if the cascade asked for speech first: it needs a whole sentence) plus
 *                    the speech fake's (request arrival → first audio chunk written)
 *   session layer    voice to voice − end-of-turn wait − upstreams: the gateway, session core,
 *                    cascade and transport. Target: p99 < 20 ms on the conversation path.
 * The fakes run on this process's event loop, as the service does: a busy loop delays them too,
 * and that time is counted as the upstreams', not the session layer's.
 * Results: bench/results/conversation.json.
 */
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../src/app.setup';
import { AppConfig } from '../src/config/app-config';
import { startFakeChatServer } from '../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../src/engines/cascade/testing/fake-speech-server';
import type { RecordingServer } from '../src/engines/cascade/testing/recording-server';
import { ENGINE_REGISTRY, type EngineRegistry } from '../src/engines';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { EngineTap, type TapMark } from './support/engine-tap';
import { writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';

const quick = process.argv.includes('--quick');
/** Measured turns per path (after WARMUP each). */
const TURNS = quick ? 60 : 200;
const WARMUP = 5;
const MODEL = 'vendor-voicechat';
const CHUNK_MS = 40;
const SAMPLES_PER_MS = 24;
const VOICED_MS = 480;
const SILENCE_MS = 240;
/** Quiet between an answer's end and the next turn. */
const GAP_MS = 200;
const ANSWER_WAIT_MS = 5000;
const TARGETS = { conversationSessionLayerP99UnderMs: 20 };
const CHAT_PIECES = ['Sure.', ' Anything', ' else?'];
const SPEECH_PLAN = { msPerChar: 20, chunkMs: 100, chunkEveryMs: 0 };

type PathName = 'conversation' | 'live';

interface Arrival {
  at: number;
  type: string;
}

/** One chunk as the microphone sent it. */
interface Sent {
  at: number;
  voiced: boolean;
}

/**
 * A client's microphone: a chunk every CHUNK_MS on an absolute schedule (a late tick sends at once,
 * so a loaded machine delays chunks but never drops them), voice when a turn is queued.
 */
class Microphone {
  readonly sent: Sent[] = [];
  private voicedLeft = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly voiced = square(CHUNK_MS);
  private readonly silence = Buffer.alloc(CHUNK_MS * SAMPLES_PER_MS * 2);
  private onVoiceSent: ((at: number) => void) | null = null;

  constructor(private readonly send: (pcm: Buffer) => void) {}

  start(): void {
    const t0 = performance.now();
    let n = 0;
    const tick = () => {
      this.tick();
      n++;
      this.timer = setTimeout(tick, Math.max(0, t0 + (n + 1) * CHUNK_MS - performance.now()));
    };
    this.timer = setTimeout(tick, CHUNK_MS);
  }

  /** Speaks the clip from the next even chunk (an engine frame's start); resolves with its last chunk's send time. */
  say(): Promise<number> {
    return new Promise((resolve) => {
      this.onVoiceSent = resolve;
      this.voicedLeft = -1; // armed: starts on the next even chunk
    });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private tick(): void {
    if (this.voicedLeft === -1 && this.sent.length % 2 === 0) this.voicedLeft = VOICED_MS / CHUNK_MS;
    const voiced = this.voicedLeft > 0;
    this.send(voiced ? this.voiced : this.silence);
    const at = performance.now();
    this.sent.push({ at, voiced });
    if (!voiced) return;
    this.voicedLeft--;
    if (this.voicedLeft === 0) {
      this.onVoiceSent?.(at);
      this.onVoiceSent = null;
    }
  }
}

/** A loud square wave (RMS 4000: speech to the scripted engine). */
function square(ms: number): Buffer {
  const pcm = Buffer.alloc(ms * SAMPLES_PER_MS * 2);
  for (let i = 0; i < ms * SAMPLES_PER_MS; i++) pcm.writeInt16LE(i % 48 < 24 ? 4000 : -4000, i * 2);
  return pcm;
}

interface Client {
  path: PathName;
  sessionId: string;
  mic: Microphone;
  arrivals: Arrival[];
  /** The event that carries answer audio, and the one that ends an answer. */
  audioEvent: string;
  doneEvent: string;
  close(): Promise<void>;
}

function record(ws: WebSocket, arrivals: Arrival[]): void {
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const at = performance.now();
    const event = JSON.parse(String(data)) as { type: string; event?: { type: string }; error?: unknown };
    const type = event.type === 'session.turn.event' && event.event ? `turn.${event.event.type}` : event.type;
    arrivals.push({ at, type });
    if (type === 'error') process.stderr.write(`server error: ${JSON.stringify(event.error)}\n`);
  });
}

async function waitFor(arrivals: Arrival[], type: string, from: number, timeoutMs = 30_000): Promise<Arrival> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = arrivals.find((a) => a.at >= from && a.type === type);
    if (found) return found;
    if (performance.now() > deadline) throw new Error(`no ${type} within ${timeoutMs} ms`);
    await sleep(2);
  }
}

const closer = (ws: WebSocket, mic: Microphone) => async () => {
  mic.stop();
  const closed = new Promise<void>((resolve) => {
    ws.once('close', () => resolve());
    setTimeout(resolve, 5000).unref();
  });
  ws.close(1000);
  await closed;
};

/** A Realtime client of the conversation path, as the OpenAI SDKs drive it. */
async function openConversation(baseUrl: string, apiKey: string): Promise<Client> {
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v1/realtime?model=${MODEL}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const arrivals: Arrival[] = [];
  const ids: string[] = [];
  ws.on('message', (data) => {
    const event = JSON.parse(String(data)) as { type: string; session?: { id?: string } };
    if (event.type === 'session.created') ids.push(String(event.session?.id));
  });
  record(ws, arrivals);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  await waitFor(arrivals, 'session.created', 0);
  ws.send(
    JSON.stringify({
      type: 'session.update',
      session: {
        type: 'realtime',
        output_modalities: ['audio'],
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            turn_detection: {
              type: 'server_vad',
              threshold: 0.5,
              prefix_padding_ms: 0,
              silence_duration_ms: SILENCE_MS,
              create_response: true,
              interrupt_response: true,
            },
          },
        },
      },
    }),
  );
  await waitFor(arrivals, 'session.updated', 0);
  const mic = new Microphone((pcm) =>
    ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') })),
  );
  return {
    path: 'conversation',
    sessionId: ids[0],
    mic,
    arrivals,
    audioEvent: 'response.output_audio.delta',
    doneEvent: 'response.done',
    close: closer(ws, mic),
  };
}

/** A live-protocol client of the voicechat path (binary audio, JSON events). */
async function openLive(baseUrl: string, apiKey: string): Promise<Client> {
  const created = await fetch(`${baseUrl}/v1/live/client_secrets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      session: {
        model: MODEL,
        audio: {
          input: {
            turn_detection: {
              type: 'server_vad',
              threshold: 0.5,
              prefix_padding_ms: 0,
              silence_duration_ms: SILENCE_MS,
              end_of_turn: null,
            },
          },
        },
      },
    }),
  });
  if (!created.ok) throw new Error(`client secret: HTTP ${created.status} ${await created.text()}`);
  const secret = ((await created.json()) as { value: string }).value;
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v1/live/sessions?token=${secret}`);
  const arrivals: Arrival[] = [];
  const ids: string[] = [];
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const event = JSON.parse(String(data)) as { type: string; session?: { id?: string } };
    if (event.type === 'session.started') ids.push(String(event.session?.id));
  });
  record(ws, arrivals);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'session.start', session: { model: MODEL } }));
  await waitFor(arrivals, 'session.started', 0);
  const mic = new Microphone((pcm) => ws.send(pcm));
  return {
    path: 'live',
    sessionId: ids[0],
    mic,
    arrivals,
    audioEvent: 'session.output_audio.delta',
    doneEvent: 'turn.response_done',
    close: closer(ws, mic),
  };
}

interface TurnFigures {
  voiceToVoice: number;
  endOfTurnWait: number;
  upstreams: number;
  chatFake: number;
  speechFake: number;
  sessionLayer: number;
  /** The session layer's time, in its stages. */
  stages: {
    /** Turn-ending chunk sent → the engine's speech_stopped (the session's audio path, the VAD). */
    toSpeechStopped: number;
    /** → the chat request arrives upstream (conversation: the session core's respond() on the way). */
    toChat: number;
    /** Chat answer (or its first sentence) → the speech request arrives. */
    toSpeech: number;
    /** Speech fake's first chunk → the engine's first output audio. */
    toEngineAudio: number;
    /** → the first answer audio delta at the client (pacer, rendering, socket). */
    transport: number;
  };
  /** Conversation only: speech_stopped → the session core calls respond(). */
  toRespond: number | null;
}

/** One turn: speaks, waits for the answer to finish, reads the figures off the clocks. */
async function turn(
  client: Client,
  tap: EngineTap,
  chat: RecordingServer,
  speech: RecordingServer,
): Promise<TurnFigures | string> {
  const from = performance.now();
  const lastVoiced = await client.mic.say();
  const deadline = lastVoiced + ANSWER_WAIT_MS;
  let audio: Arrival | undefined;
  let done: Arrival | undefined;
  while (performance.now() < deadline) {
    audio ??= client.arrivals.find((a) => a.at >= lastVoiced && a.type === client.audioEvent);
    done = audio && client.arrivals.find((a) => a.at >= audio!.at && a.type === client.doneEvent);
    if (done) break;
    await sleep(5);
  }
  await sleep(GAP_MS);
  if (!audio) return 'no answer audio';
  if (!done) return 'answer not done';
  const marks = tap.marks(client.sessionId).filter((m) => m.at >= from);
  const first = (kind: string, after = lastVoiced): TapMark | undefined =>
    marks.find((m) => m.kind === kind && m.at >= after);
  const stopped = first('speech_stopped');
  if (!stopped) return 'no speech_stopped';
  const decisive = client.mic.sent.filter((s) => s.at <= stopped.at).at(-1)!;
  const chatRequest = chat.requests.find((r) => r.receivedAt >= stopped.at && r.receivedAt <= audio!.at);
  const speechRequest =
    chatRequest && speech.requests.find((r) => r.receivedAt >= chatRequest.receivedAt && r.receivedAt <= audio!.at);
  if (!chatRequest || !speechRequest || chatRequest.lastWriteAt === null || speechRequest.firstWriteAt === null)
    return 'upstream requests not found';
  const engineAudio = first('output_audio', speechRequest.firstWriteAt);
  if (!engineAudio) return 'no engine audio';
  const chatDone = Math.min(chatRequest.lastWriteAt, speechRequest.receivedAt);
  const chatFake = chatDone - chatRequest.receivedAt;
  const speechFake = speechRequest.firstWriteAt - speechRequest.receivedAt;
  const voiceToVoice = audio.at - lastVoiced;
  const endOfTurnWait = decisive.at - lastVoiced;
  const respond = client.path === 'conversation' ? first('respond', stopped.at) : undefined;
  return {
    voiceToVoice,
    endOfTurnWait,
    upstreams: chatFake + speechFake,
    chatFake,
    speechFake,
    sessionLayer: voiceToVoice - endOfTurnWait - chatFake - speechFake,
    stages: {
      toSpeechStopped: stopped.at - decisive.at,
      toChat: chatRequest.receivedAt - stopped.at,
      toSpeech: speechRequest.receivedAt - chatDone,
      toEngineAudio: engineAudio.at - speechRequest.firstWriteAt,
      transport: audio.at - engineAudio.at,
    },
    toRespond: respond ? respond.at - stopped.at : null,
  };
}

function summarise(figures: TurnFigures[], failures: string[]) {
  const of = (pick: (f: TurnFigures) => number | null) =>
    distribution(figures.map(pick).filter((v): v is number => v !== null));
  return {
    turns: figures.length,
    failures,
    voiceToVoiceMs: of((f) => f.voiceToVoice),
    endOfTurnWaitMs: of((f) => f.endOfTurnWait),
    upstreamsMs: of((f) => f.upstreams),
    chatFakeMs: of((f) => f.chatFake),
    speechFakeMs: of((f) => f.speechFake),
    sessionLayerMs: of((f) => f.sessionLayer),
    sessionLayerStagesMs: {
      toSpeechStopped: of((f) => f.stages.toSpeechStopped),
      toChat: of((f) => f.stages.toChat),
      toSpeech: of((f) => f.stages.toSpeech),
      toEngineAudio: of((f) => f.stages.toEngineAudio),
      transport: of((f) => f.stages.transport),
    },
    speechStoppedToRespondMs: of((f) => f.toRespond),
  };
}

/** Nearest-rank percentiles to 0.1 ms (the session layer's share is a few ms). */
function distribution(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  const tenth = (v: number | undefined) => (v === undefined ? null : Math.round(v * 10) / 10);
  const mean = sorted.length === 0 ? undefined : sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return {
    count: sorted.length,
    p50: tenth(at(0.5)),
    p95: tenth(at(0.95)),
    p99: tenth(at(0.99)),
    max: tenth(sorted.at(-1)),
    mean: tenth(mean),
  };
}

/**
 * The histogram records each interval between its samples, the sampling interval included (an idle
 * loop reads p50 10.1 ms at a 10 ms resolution): the delay is what lies beyond it.
 */
const LOOP_SAMPLE_MS = 10;
const loopLate = (ns: number) => Math.max(0, Math.round(ns / 1e5 - LOOP_SAMPLE_MS * 10) / 10);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = loadavg().map((l) => Math.round(l * 100) / 100);
  const chat = await startFakeChatServer(() => ({ kind: 'reply', pieces: CHAT_PIECES }));
  const speech = await startFakeSpeechServer(() => SPEECH_PLAN);
  const engines = {
    engines: {
      listen: { kind: 'scripted', maxStreams: 8 },
      voicechat: {
        kind: 'cascade',
        listener: 'listen',
        languages: ['en'],
        chat: { url: chat.baseUrl, model: 'bench', timeoutMs: 5000 },
        speech: { url: speech.baseUrl, model: 'kokoro', voice: 'af_heart', timeoutMs: 5000 },
      },
    },
    models: { 'vendor-asr-streaming': 'listen', [MODEL]: 'voicechat' },
  };
  const database = await createScratchDatabase('conversation');
  let app: NestFastifyApplication | null = null;
  const clients: Client[] = [];
  try {
    const config = new AppConfig({
      DATABASE_URL: database.url,
      ENGINES_JSON: JSON.stringify(engines),
      CONCURRENT_SESSIONS_LIMIT: '100',
      MAX_SESSION_SECONDS: '3600', // one session per path for the whole run
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
    });
    tuneHeapForStreaming(); // as main.ts does
    app = await createApp({
      config,
      database: new DatabaseLocation(database.url, null),
      logger: createRootLogger('warn'),
    });
    await app.listen(0, '127.0.0.1');
    const tap = EngineTap.install(app.get<EngineRegistry>(ENGINE_REGISTRY), MODEL);
    const { secret: apiKey } = await app.get(ProjectsService).createProject(`bench-conversation-${Date.now()}`);
    const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;

    clients.push(await openConversation(baseUrl, apiKey), await openLive(baseUrl, apiKey));
    for (const c of clients) c.mic.start();
    // Stalls of the one event loop (client, service and fakes): what the shared machine did to every figure.
    const loopDelay = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
    loopDelay.enable();
    const figures: Record<PathName, TurnFigures[]> = { conversation: [], live: [] };
    const failures: Record<PathName, string[]> = { conversation: [], live: [] };
    for (let i = 0; i < WARMUP + TURNS; i++) {
      for (const c of clients) {
        const result = await turn(c, tap, chat, speech);
        if (i < WARMUP) continue;
        if (typeof result === 'string') failures[c.path].push(result);
        else figures[c.path].push(result);
        if (failures[c.path].length >= 5) throw new Error(`${c.path}: ${failures[c.path].join('; ')}`);
      }
      if ((i + 1) % 20 === 0) process.stdout.write(`${i + 1 - WARMUP} turns per path\n`);
    }
    loopDelay.disable();
    const results = {
      turnsPerPath: TURNS,
      warmupTurnsPerPath: WARMUP,
      clip: { voicedMs: VOICED_MS, silenceDurationMs: SILENCE_MS, chunkMs: CHUNK_MS },
      listener: 'scripted',
      upstreams: { chatPieces: CHAT_PIECES, speech: SPEECH_PLAN },
      loadAverageAtStart: loadAtStart,
      eventLoopDelayMs: {
        p50: loopLate(loopDelay.percentile(50)),
        p99: loopLate(loopDelay.percentile(99)),
        max: loopLate(loopDelay.max),
      },
      conversation: summarise(figures.conversation, failures.conversation),
      live: summarise(figures.live, failures.live),
      seconds: Math.round((performance.now() - started) / 1000),
    };
    const c = results.conversation;
    const l = results.live;
    const met =
      c.sessionLayerMs.p99 !== null &&
      c.failures.length === 0 &&
      c.sessionLayerMs.p99 < TARGETS.conversationSessionLayerP99UnderMs;
    const headline =
      `conversation: voice to voice p50/p95/p99 ${c.voiceToVoiceMs.p50} / ${c.voiceToVoiceMs.p95} / ${c.voiceToVoiceMs.p99} ms, ` +
      `session layer ${c.sessionLayerMs.p50} / ${c.sessionLayerMs.p95} / ${c.sessionLayerMs.p99} ms; ` +
      `live: ${l.voiceToVoiceMs.p50} / ${l.voiceToVoiceMs.p95} / ${l.voiceToVoiceMs.p99} ms, ` +
      `session layer ${l.sessionLayerMs.p50} / ${l.sessionLayerMs.p95} / ${l.sessionLayerMs.p99} ms ` +
      `(${SILENCE_MS} ms VAD silence, ${c.turns} + ${l.turns} turns)`;
    const path = writeReport({ name: 'conversation', headline, results, targets: TARGETS, met });
    process.stdout.write(`${headline}\n${JSON.stringify(results, null, 2)}\nwritten to ${path}\n`);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await app?.close();
    await chat.close();
    await speech.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
