/**
 * Voice-to-voice and barge-in benchmark of `vendor-voicechat`, through the live socket as a user has
 * it: the service in this process, a client whose microphone streams without a break (the held-out
 * complete turns of the end-of-turn calibration set, calibration-set.ts: flite and espeak-ng voices,
 * sentences the end-of-turn model was never tuned on, at real-time pace in 80 ms chunks),
 * each turn spoken once the previous answer has been heard for a moment, so that it also barges in
 * on that answer, its speech starting at a different point of an input chunk each time
 * (src/engines/embedded/testing/voice-to-voice.ts).
 *
 *   npm run build && node dist/bench/voice.bench.js [--quick]
 *
 * 1. Embedded engine, default turn detection (end-of-turn confidence, eager answers): voice to voice
 *    from the last voiced sample to the first audible answer frame received, p50/p95, with its parts
 *    (bench/support/voice-timeline.ts); beside it, the fixed-silence baseline (`end_of_turn: null`:
 *    500 ms of silence). Targets (issue 26) p50 ≤ 300 ms, p95 ≤ 450 ms.
 * 2. The cascade (ENGINES_JSON: the embedded engine listens, fake OpenAI-compatible chat and speech
 *    servers answer at once on local sockets): the gateway's own share of voice to voice (everything
 *    but the end-of-turn wait and the fakes' own time). Target p50 ≤ 20 ms.
 * 3. Barge-in, embedded engine at defaults: from the first speech chunk sent over an answer to the
 *    last answer frame received. Target p95 ≤ 200 ms.
 * The server's side of the timeline comes from a tap on the engine (bench/support/engine-tap.ts),
 * on the same clock as the client. Results: bench/results/voice.json.
 */
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { startFakeChatServer } from '../src/engines/cascade/testing/fake-chat-server';
import { startFakeSpeechServer } from '../src/engines/cascade/testing/fake-speech-server';
import { summarize } from '../src/engines/embedded/testing/speech-timing';
import { buildCalibrationSet } from '../src/engines/embedded/testing/calibration-set';
import type { LabelledTurn } from '../src/engines/embedded/testing/turn-set';
import { Conversation, type SpokenTurn } from '../src/engines/embedded/testing/voice-to-voice';
import { ENGINE_REGISTRY, type EngineRegistry } from '../src/engines';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { EngineTap } from './support/engine-tap';
import { writeReport } from './support/report';
import { createScratchDatabase, type ScratchDatabase } from './support/scratch-database';
import { readTurns, type BargeIn, type Fakes, type VoiceTurn } from './support/voice-timeline';

const quick = process.argv.includes('--quick');
/** Every other held-out complete turn of the calibration set (every sixth with --quick). */
const EVERY = quick ? 6 : 2;
/** The fixed-silence baseline hears one voice's turns: beside the default, it need not be as tight. */
const BASELINE_TURNS = quick ? 4 : 8;
const TARGETS = {
  voiceToVoiceP50AtMostMs: 300,
  voiceToVoiceP95AtMostMs: 450,
  cascadeGatewayShareP50AtMostMs: 20,
  bargeInP95AtMostMs: 200,
};
/** How long an answer plays before the next turn starts over it: spread over the output frame. */
const BARGE_AFTER_MS = [230, 410, 560, 290, 470, 350, 620, 270];
/** An answer not heard this long after the turn is a miss. */
const ANSWER_WAIT_MS = 4000;
const MODEL = 'vendor-voicechat';
/** The microphone's chunk: turns start at different points of it. */
const CHUNK_MS = 80;

interface Service {
  baseUrl: string;
  apiKey: string;
  tap: EngineTap;
  close(): Promise<void>;
}

async function startService(database: ScratchDatabase, env: Record<string, string>): Promise<Service> {
  const config = new AppConfig({
    DATABASE_URL: database.url,
    SPEECH_ENGINE: 'embedded',
    ENGINE_MAX_STREAMS: '4',
    CONCURRENT_SESSIONS_LIMIT: '100',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    LOG_LEVEL: 'warn',
    ...env,
  });
  tuneHeapForStreaming(); // as main.ts does
  const app: NestFastifyApplication = await createApp({
    config,
    database: new DatabaseLocation(database.url, null),
    logger: createRootLogger('warn'),
  });
  await app.listen(0, '127.0.0.1');
  const tap = EngineTap.install(app.get<EngineRegistry>(ENGINE_REGISTRY), MODEL);
  const { secret: apiKey } = await app.get(ProjectsService).createProject(`bench-voice-${Date.now()}`);
  const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  return { baseUrl, apiKey, tap, close: () => app.close() };
}

/** One conversation: every turn in turn, each started a moment into the previous answer. */
async function converse(
  service: Service,
  turns: LabelledTurn[],
  turnDetection?: Record<string, unknown>,
): Promise<{ sessionId: string; spoken: SpokenTurn[]; conversation: Conversation }> {
  const conversation = await Conversation.open(service.baseUrl, service.apiKey, turnDetection);
  const spoken: SpokenTurn[] = [];
  for (const [i, turn] of turns.entries()) {
    const s = await conversation.say(turn, (i * 29) % CHUNK_MS);
    spoken.push(s);
    const heard = await conversation.next(
      (a) => a.type === 'session.output_audio.delta' && a.audible === true,
      s.speechEndAt,
      s.speechEndAt + ANSWER_WAIT_MS,
    );
    if (heard) await sleep(heard.at + BARGE_AFTER_MS[i % BARGE_AFTER_MS.length] - performance.now());
  }
  await sleep(1500); // the last answer plays a little, the last events arrive
  await conversation.close();
  return { sessionId: conversation.sessionId, spoken, conversation };
}

async function measure(
  service: Service,
  turns: LabelledTurn[],
  turnDetection?: Record<string, unknown>,
  fakes?: Fakes,
) {
  // A first turn of its own: the first synthesis and decode of the process are not a turn's.
  await converse(service, turns.slice(0, 1), turnDetection);
  const run = await converse(service, turns, turnDetection);
  return readTurns(run.spoken, run.conversation.arrivals, service.tap.marks(run.sessionId), fakes ?? null);
}

function summary({ turns, errors }: { turns: VoiceTurn[]; errors: string[] }) {
  const heard = turns.filter((t) => t.voiceToVoiceMs !== null);
  const parted = heard.filter((t) => t.parts !== null);
  const part = (key: keyof NonNullable<VoiceTurn['parts']>) => summarize(parted.map((t) => t.parts![key]));
  const client = (key: keyof VoiceTurn['client']) =>
    summarize(turns.map((t) => t.client[key]).filter((v): v is number => v !== null));
  return {
    voiceToVoiceMs: summarize(heard.map((t) => t.voiceToVoiceMs!)),
    unanswered: turns.length - heard.length,
    errors,
    earlyAnswers: turns.reduce((n, t) => n + t.earlyAnswers, 0),
    preparedAnswers: turns.filter((t) => t.prepared).length,
    partsMs: {
      endOfTurn: part('endOfTurn'),
      recognitionFinal: part('recognitionFinal'),
      answer: part('answer'),
      synthesis: part('synthesis'),
      transport: part('transport'),
      leadIn: part('leadIn'),
    },
    clientSeesMs: {
      final: client('finalMs'),
      endOfTurnEvent: client('endOfTurnEventMs'),
      responseStarted: client('responseStartedMs'),
    },
    speechStoppedErrorMs: summarize(turns.map((t) => t.speechStoppedErrorMs).filter((v): v is number => v !== null)),
  };
}

function cascadeSummary(run: { turns: VoiceTurn[]; errors: string[] }) {
  const { turns } = run;
  const measured = turns.filter((t) => t.cascade !== null).map((t) => t.cascade!);
  const dist = (key: keyof (typeof measured)[number]) => tenths(measured.map((c) => c[key]));
  return {
    ...summary(run),
    gatewayShareMs: dist('gatewayShare'),
    gatewayPartsMs: {
      recognitionFinal: tenths(turns.filter((t) => t.cascade && t.parts).map((t) => t.parts!.recognitionFinal)),
      toChat: dist('toChat'),
      toSpeech: dist('toSpeech'),
      toAudio: dist('toAudio'),
      transport: tenths(turns.filter((t) => t.cascade && t.parts).map((t) => t.parts!.transport)),
      leadIn: tenths(turns.filter((t) => t.cascade && t.parts).map((t) => t.parts!.leadIn)),
    },
    fakesMs: { chat: dist('chatFake'), speech: dist('speechFake') },
  };
}

function bargeInSummary({ bargeIns, suspicionsRuledOut }: { bargeIns: BargeIn[]; suspicionsRuledOut: number }) {
  const of = (values: Array<number | null>) => tenths(values.filter((v): v is number => v !== null));
  return {
    latencyMs: of(bargeIns.map((b) => b.latencyMs)),
    suspectedMs: of(bargeIns.map((b) => b.suspectedMs)),
    onsetMs: of(bargeIns.map((b) => b.onsetMs)),
    heldAtClientMs: of(bargeIns.map((b) => b.heldMs)),
    framesAfterResponseDone: bargeIns.reduce((n, b) => n + b.framesAfterDone, 0),
    suspicionsRuledOut,
  };
}

/** n, p50, p95, max to 0.1 ms (the gateway's share is a few ms). */
function tenths(values: number[]): { n: number; p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  const r = (v: number | undefined) => (v === undefined ? Number.NaN : Math.round(v * 10) / 10);
  return { n: sorted.length, p50: r(at(0.5)), p95: r(at(0.95)), max: r(sorted.at(-1)) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = loadavg().map((l) => Math.round(l * 100) / 100);
  const complete = await buildCalibrationSet({
    trailMs: 0,
    filter: (spec) => spec.split === 'held_out' && spec.kind !== 'paused',
  });
  const turns: LabelledTurn[] = complete.filter((_, i) => i % EVERY === 0);
  const database = await createScratchDatabase('voice');
  try {
    // 1 and 3: the embedded engine.
    const embedded = await startService(database, {});
    let defaults: ReturnType<typeof readTurns>;
    let fixed: ReturnType<typeof readTurns>;
    try {
      defaults = await measure(embedded, turns);
      fixed = await measure(embedded, turns.slice(0, BASELINE_TURNS), { end_of_turn: null });
    } finally {
      await embedded.close();
    }

    // 2: the cascade against fakes that answer at once.
    const chat = await startFakeChatServer(() => ({
      kind: 'reply',
      pieces: ['Sure', ', here', ' it is.', ' Anything', ' else?'],
    }));
    const speech = await startFakeSpeechServer(() => ({ msPerChar: 60, chunkMs: 100, chunkEveryMs: 0 }));
    const engines = {
      engines: {
        listen: { kind: 'embedded', maxStreams: 4 },
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
    const cascaded = await startService(database, { ENGINES_JSON: JSON.stringify(engines) });
    let cascade: ReturnType<typeof readTurns>;
    try {
      cascade = await measure(cascaded, turns, undefined, { chat: chat.requests, speech: speech.requests });
    } finally {
      await cascaded.close();
      await chat.close();
      await speech.close();
    }

    const results = {
      turns: turns.length,
      voices: [...new Set(turns.map((t) => t.voice))],
      loadAverageAtStart: loadAtStart,
      embedded: { defaults: summary(defaults), fixedSilence500: summary(fixed) },
      cascade: cascadeSummary(cascade),
      bargeIn: { embedded: bargeInSummary(defaults), cascade: bargeInSummary(cascade) },
      perTurn: defaults.turns.map((t, i) => ({
        id: t.id,
        voiceToVoiceMs: t.voiceToVoiceMs,
        parts: t.parts,
        prepared: t.prepared,
        cascadeVoiceToVoiceMs: cascade.turns[i]?.voiceToVoiceMs ?? null,
        cascadeGatewayShareMs: cascade.turns[i]?.cascade?.gatewayShare ?? null,
      })),
      perBargeIn: defaults.bargeIns,
      seconds: Math.round((performance.now() - started) / 1000),
    };
    const v = results.embedded.defaults.voiceToVoiceMs;
    const g = results.cascade.gatewayShareMs;
    const b = results.bargeIn.embedded.latencyMs;
    const met =
      v.p50 <= TARGETS.voiceToVoiceP50AtMostMs &&
      v.p95 <= TARGETS.voiceToVoiceP95AtMostMs &&
      g.p50 <= TARGETS.cascadeGatewayShareP50AtMostMs &&
      b.p95 <= TARGETS.bargeInP95AtMostMs &&
      b.n > 0;
    const f = results.embedded.fixedSilence500.voiceToVoiceMs;
    const headline =
      `voice to voice p50 ${v.p50} / p95 ${v.p95} ms over ${v.n} turns (fixed 500 ms silence: ${f.p50} / ${f.p95}); ` +
      `cascade gateway share p50 ${g.p50} / p95 ${g.p95} ms; barge-in p50 ${b.p50} / p95 ${b.p95} ms over ${b.n}`;
    const path = writeReport({ name: 'voice', headline, results, targets: TARGETS, met });
    process.stdout.write(`voice bench → ${path} (${results.seconds} s)\n  ${headline}\n`);
  } finally {
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
