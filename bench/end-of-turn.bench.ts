/**
 * End-of-turn benchmark on the calibration set (src/engines/embedded/testing/calibration-set.ts,
 * test/fixtures/end-of-turn-calibration.json: 132 labelled turns, 44 sentences in five synthetic
 * voices, complete turns and turns paused 250–800 ms mid-sentence, lead-ins of 200–700 ms), each
 * turn played through the real sockets and the embedded engine at real-time pace twice, one after
 * the other: `/v2/listen` at its defaults (the end-of-turn model; eager mode at 0.5) and, as the
 * baseline in the same run, `/v1/listen` with a fixed 500 ms endpointing silence.
 *
 *   npm run build && node dist/bench/end-of-turn.bench.js [--quick]
 *
 * Reported separately for the turns tuned on and the held-out turns (never tuned on):
 * - End of turn after the last voiced sample on complete turns, p50 / p95 / max. Targets (held out):
 *   p50 ≤ 250 ms, max ≤ 600 ms.
 * - False ends on mid-sentence pauses: share of paused turns ended inside their pause. Target ≤ 5%.
 * - The same audio in different batchings: a few held-out turns played again with other chunk sizes
 *   and lead-ins; the spread of their EndOfTurn on the audio timeline (audio_window_end, the point the
 *   session judged the turn over) and as received. Target: within ±40 ms of each other.
 * Voicechat voice to voice (which this end of turn leads to) is the voice case's (bench/voice.bench.ts).
 *
 * The service runs in this process (Fastify, PostgreSQL or the embedded database, the embedded
 * engine); one session at a time, so that the benchmark does not load the machine it measures.
 * Results: bench/results/end-of-turn.json.
 */
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { buildCalibrationSet, type CalibrationTurn } from '../src/engines/embedded/testing/calibration-set';
import { concatAudio, silence } from '../src/engines/embedded/testing/speech-fixtures';
import { summarize } from '../src/engines/embedded/testing/speech-timing';
import {
  playTurn,
  scoreTurns,
  type TurnDialect,
  type TurnObservation,
} from '../src/engines/embedded/testing/turn-runner';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';

const quick = process.argv.includes('--quick');
const TARGETS = {
  heldOutCompleteP50AtMostMs: 250,
  heldOutCompleteMaxAtMostMs: 600,
  heldOutFalseEndOnPausesAtMost: 0.05,
  sameAudioSpreadAtMostMs: 80,
};
/** Batchings for the same-audio check: [chunk ms, extra lead-in ms]. */
const BATCHINGS: Array<[number, number]> = [
  [80, 0],
  [20, 130],
  [200, 270],
  [40, 410],
];
const SAME_AUDIO_TURNS = quick ? 2 : 6;

interface PartScore {
  turns: number;
  complete: { n: number; p50: number; p95: number; max: number };
  completeMissed: number;
  pausedTurns: number;
  falseEndOnPauses: number;
  paused: { n: number; p50: number; p95: number; max: number };
  precision: number;
  recall: number;
  eagerWasted: number | null;
}

function score(observations: TurnObservation[]): PartScore {
  const complete = observations.filter((o) => o.turn.pauses.length === 0);
  const paused = observations.filter((o) => o.turn.pauses.length > 0);
  const all = scoreTurns(observations);
  const first = (o: TurnObservation) => o.endsAfterSpeechMs[0];
  return {
    turns: observations.length,
    complete: summarize(complete.filter((o) => o.endsAfterSpeechMs.length > 0).map(first)),
    completeMissed: complete.filter((o) => o.endsAfterSpeechMs.length === 0).length,
    pausedTurns: paused.length,
    falseEndOnPauses: round(paused.filter((o) => o.earlyEnds > 0).length / Math.max(1, paused.length), 3),
    paused: summarize(paused.filter((o) => o.endsAfterSpeechMs.length > 0).map(first)),
    precision: all.precision,
    recall: all.recall,
    eagerWasted: all.eagerWasted,
  };
}

/** The turn with `extraMs` more lead-in silence. */
function withLead(turn: CalibrationTurn, extraMs: number): CalibrationTurn {
  return {
    ...turn,
    pcm: concatAudio([silence(extraMs), turn.pcm]),
    speechStartMs: turn.speechStartMs + extraMs,
    speechEndMs: turn.speechEndMs + extraMs,
    pauses: turn.pauses.map((p) => ({ startMs: p.startMs + extraMs, endMs: p.endMs + extraMs })),
    leadMs: turn.leadMs + extraMs,
  };
}

async function main(): Promise<void> {
  const loadAtStart = (await import('node:os')).loadavg().map((l) => round(l, 2));
  const turns = await buildCalibrationSet({
    trailMs: 1000,
    ...(quick ? { filter: (spec) => spec.sentence % 4 === 0 } : {}),
  });
  const database = await createScratchDatabase('end-of-turn');
  const config = new AppConfig({
    DATABASE_URL: database.url,
    SPEECH_ENGINE: 'embedded',
    ENGINE_MAX_STREAMS: '4',
    CONCURRENT_SESSIONS_LIMIT: '100',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    LOG_LEVEL: 'warn',
  });
  tuneHeapForStreaming(); // as main.ts does
  const app = await createApp({
    config,
    database: new DatabaseLocation(database.url, null),
    logger: createRootLogger('warn'),
  });
  try {
    await app.listen(0, '127.0.0.1');
    const { secret: apiKey } = await app.get(ProjectsService).createProject('bench-end-of-turn');
    const ws = `ws://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const pcm24 = 'encoding=linear16&sample_rate=24000';
    const flux: TurnDialect = { kind: 'flux', query: `model=flux-general-en&${pcm24}&eager_eot_threshold=0.5` };
    const timer: TurnDialect = { kind: 'listen', query: `model=nova-3&${pcm24}&endpointing=500` };

    // Each turn on both sides, one right after the other, so that drift on a shared machine hits both alike.
    const model: TurnObservation[] = [];
    const fixed: TurnObservation[] = [];
    for (const turn of turns) {
      model.push(await playTurn(ws, apiKey, flux, turn));
      fixed.push(await playTurn(ws, apiKey, timer, turn));
    }

    // The same audio, batched differently: held-out complete turns, other chunk sizes and lead-ins.
    const sameAudio: Array<{ id: string; audioMs: number[]; receivedMs: number[] }> = [];
    const candidates = turns.filter((t) => t.split === 'held_out' && t.pauses.length === 0);
    const step = Math.max(1, Math.floor(candidates.length / SAME_AUDIO_TURNS));
    for (const turn of candidates.filter((_, i) => i % step === 0).slice(0, SAME_AUDIO_TURNS)) {
      const audioMs: number[] = [];
      const receivedMs: number[] = [];
      for (const [chunkMs, extraMs] of BATCHINGS) {
        const o = await playTurn(ws, apiKey, flux, withLead(turn, extraMs), { chunkMs });
        audioMs.push(Math.round(o.endsAtAudioMs[0] ?? Number.NaN));
        receivedMs.push(Math.round(o.endsAfterSpeechMs[0] ?? Number.NaN));
      }
      sameAudio.push({ id: turn.id, audioMs, receivedMs });
    }
    const spread = (values: number[]) => Math.max(...values) - Math.min(...values);

    const part = (split: string) => {
      const keep = (o: TurnObservation) => (o.turn as CalibrationTurn).split === split;
      return { model: score(model.filter(keep)), fixedSilence500: score(fixed.filter(keep)) };
    };
    const results = {
      turns: turns.length,
      voices: [...new Set(turns.map((t) => t.voice))],
      loadAverageAtStart: loadAtStart,
      heldOut: part('held_out'),
      tune: part('tune'),
      sameAudio: {
        batchings: BATCHINGS.map(([chunkMs, extraLeadMs]) => ({ chunkMs, extraLeadMs })),
        maxSpreadOnAudioMs: Math.max(...sameAudio.map((s) => spread(s.audioMs))),
        maxSpreadReceivedMs: Math.max(...sameAudio.map((s) => spread(s.receivedMs))),
        turns: sameAudio,
      },
      perTurn: model.map((o, i) => ({
        id: o.turn.id,
        split: (o.turn as CalibrationTurn).split,
        kind: o.turn.kind,
        pauseMs: o.turn.pauseMs,
        leadMs: (o.turn as CalibrationTurn).leadMs,
        modelEndMs: o.endsAfterSpeechMs.map(Math.round),
        modelEarly: o.earlyEnds,
        fixedEndMs: fixed[i]?.endsAfterSpeechMs.map(Math.round),
        fixedEarly: fixed[i]?.earlyEnds,
        transcript: o.transcripts.join(' | '),
      })),
    };
    const h = results.heldOut.model;
    const hf = results.heldOut.fixedSilence500;
    const met =
      h.complete.p50 <= TARGETS.heldOutCompleteP50AtMostMs &&
      h.complete.max <= TARGETS.heldOutCompleteMaxAtMostMs &&
      h.falseEndOnPauses <= TARGETS.heldOutFalseEndOnPausesAtMost &&
      results.sameAudio.maxSpreadOnAudioMs <= TARGETS.sameAudioSpreadAtMostMs;
    const headline =
      `held out: complete EOT p50 ${h.complete.p50} / p95 ${h.complete.p95} / max ${h.complete.max} ms ` +
      `(fixed 500 ms: ${hf.complete.p50} / ${hf.complete.p95} / ${hf.complete.max}); ` +
      `false EOT on pauses ${round(h.falseEndOnPauses * 100, 1)}% (fixed ${round(hf.falseEndOnPauses * 100, 1)}%); ` +
      `same audio spread ${results.sameAudio.maxSpreadOnAudioMs} ms`;
    const path = writeReport({ name: 'end-of-turn', headline, results, targets: TARGETS, met });
    process.stdout.write(`end-of-turn bench → ${path}\n  ${headline}\n`);
  } finally {
    await app.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
