/**
 * End-of-turn benchmark: the session core's end-of-turn confidence beside the fixed-silence
 * baseline, in the same run, through the real sockets, the embedded engine and flite speech played
 * at real-time pace (src/engines/embedded/testing/turn-set.ts: statements, questions, and sentences
 * with a 200–600 ms mid-sentence pause).
 *
 *   npm run build && node dist/bench/end-of-turn.bench.js [--quick]
 *
 * - End-of-turn latency: from the last voiced sample to the EndOfTurn received on `/v2/listen`
 *   (defaults, eager mode at 0.5) vs the `speech_final` result of `/v1/listen` with 500 ms endpointing.
 *   Target p50 ≤ 300 ms (Deepgram's figure for Flux is about 260 ms).
 * - False end of turn on mid-sentence pauses: share of paused turns ended inside their pause. Target ≤ 5%.
 * Voicechat voice to voice (which this end of turn leads to) is the voice case's (bench/voice.bench.ts).
 *
 * The service runs in this process (Fastify, PostgreSQL or the embedded database, the embedded
 * engine); one session at a time, so that the benchmark does not load the machine it measures. Results: bench/results/end-of-turn.json.
 */
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.setup';
import { createRootLogger } from '../src/platform/logging/logger';
import { tuneHeapForStreaming } from '../src/platform/runtime/heap-tuning';
import { AppConfig } from '../src/config/app-config';
import { DatabaseLocation } from '../src/platform/database/database.module';
import { playTurns, scoreTurns, type TurnObservation } from '../src/engines/embedded/testing/turn-runner';
import { buildTurnSet } from '../src/engines/embedded/testing/turn-set';
import { ProjectsService } from '../src/modules/projects/projects.service';
import { round, writeReport } from './support/report';
import { createScratchDatabase } from './support/scratch-database';

const quick = process.argv.includes('--quick');
const TARGETS = { eotLatencyP50AtMostMs: 300, falseEndOnPausesAtMost: 0.05 };

async function main(): Promise<void> {
  const turns = await buildTurnSet({ voices: quick ? ['awb'] : ['awb', 'rms'] });
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

    // Interleaved per half of the set, so that drift on a shared machine hits both sides alike.
    const model: TurnObservation[] = [];
    const fixed: TurnObservation[] = [];
    for (const half of [turns.filter((_, i) => i % 2 === 0), turns.filter((_, i) => i % 2 === 1)]) {
      model.push(
        ...(await playTurns(
          ws,
          apiKey,
          { kind: 'flux', query: `model=flux-general-en&${pcm24}&eager_eot_threshold=0.5` },
          half,
          1,
        )),
      );
      fixed.push(
        ...(await playTurns(ws, apiKey, { kind: 'listen', query: `model=nova-3&${pcm24}&endpointing=500` }, half, 1)),
      );
    }

    const results = {
      turns: turns.length,
      endOfTurn: { model: scoreTurns(model), fixedSilence500: scoreTurns(fixed) },
      perTurn: model.map((o, i) => ({
        id: o.turn.id,
        kind: o.turn.kind,
        pauseMs: o.turn.pauseMs,
        modelEndMs: o.endsAfterSpeechMs.map(Math.round),
        modelEarly: o.earlyEnds,
        fixedEndMs: fixed[i]?.endsAfterSpeechMs.map(Math.round),
        fixedEarly: fixed[i]?.earlyEnds,
        transcript: o.transcripts.join(' | '),
      })),
    };
    const m = results.endOfTurn.model;
    const met =
      m.latencyMs.p50 <= TARGETS.eotLatencyP50AtMostMs && m.falseEndOnPauses <= TARGETS.falseEndOnPausesAtMost;
    const f = results.endOfTurn.fixedSilence500;
    const headline =
      `EOT p50 ${m.latencyMs.p50} / p95 ${m.latencyMs.p95} ms (fixed 500 ms: ${f.latencyMs.p50} / ${f.latencyMs.p95}); ` +
      `false EOT on pauses ${round(m.falseEndOnPauses * 100, 1)}% (fixed ${round(f.falseEndOnPauses * 100, 1)}%)`;
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
