/**
 * Benchmark of the embedded speech engine on this machine.
 *
 *   npm run build && node dist/bench/engine.bench.js [--quick]
 *
 * 1. Throughput: every test recording fed as fast as the engine takes it, one stream per corpus;
 *    real-time factor (CPU time / audio time) and WER.
 * 2. Concurrency: N transcription streams fed together at real-time pace for 20 s of speech each,
 *    for growing N. A step "keeps up" when every utterance gets its final, the final follows the
 *    engine's end of turn by ≤ 300 ms (p95) and the first partial comes ≤ 1 s after speech starts
 *    (p95): a backlog in decoding shows in both. The machine is shared, so a step that fails is run
 *    once more before the search stops. Latencies at N = 1 are the single-stream figures.
 * 3. Manual turns: final transcript after commit().
 * Targets (issue 17): first partial p50 < 300 ms and p95 < 450 ms; final p95 < 300 ms after the end
 * of speech beyond the silence the client's turn detection waits for; at least 24 concurrent
 * real-time streams, with the CPU per stream and the real-time factor at the limit reported.
 * Results: bench/results/engine.json, in the report shape `npm run bench` summarises (bench/run.ts).
 */
import { cpus, getPriority, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { EmbeddedSpeechEngine } from '../src/engines/embedded/embedded-speech.engine';
import { DECODER_ARGS, DEFAULT_TUNING } from '../src/engines/embedded/engine-options';
import { partialRevisionRate, utteranceLatencies } from '../src/engines/embedded/testing/latency-probe';
import * as fixtures from '../src/engines/embedded/testing/speech-fixtures';
import { speechSpan, summarize } from '../src/engines/embedded/testing/speech-timing';
import { EventLog, feedAudio, feedTogether } from '../src/engines/embedded/testing/stream-driver';
import { corpusWer } from '../src/engines/embedded/testing/wer';
import type { EngineStreamConfig, TurnDetectionConfig } from '../src/session-core';
import { round, writeReport } from './support/report';

const quick = process.argv.includes('--quick');
const STEP_AUDIO_MS = quick ? 8000 : 20_000;
const STEPS = quick ? [1, 2] : [1, 2, 4, 8, 12, 16, 20, 24, 28, 32];
const GAP_MS = 800;

/** OpenAI Realtime's server VAD defaults. */
const TURNS: TurnDetectionConfig = { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 };

const config = (sessionId: string, turnDetection: TurnDetectionConfig | null = TURNS): EngineStreamConfig => ({
  sessionId,
  type: 'transcription',
  model: 'vendor-asr-streaming',
  language: 'en',
  voice: null,
  turnDetection,
});

interface Corpus {
  name: string;
  utterances: fixtures.Utterance[];
}

async function loadCorpora(): Promise<Corpus[]> {
  const corpora: Corpus[] = [];
  for (const voice of ['rms', 'slt', 'awb'])
    corpora.push({ name: `flite-${voice}`, utterances: await fixtures.fliteUtterances(voice) });
  if (fixtures.hasTestData()) {
    corpora.push({ name: 'librivox', utterances: fixtures.librivoxUtterances() });
    corpora.push({ name: 'cards', utterances: fixtures.cardsUtterances() });
  }
  return corpora;
}

async function throughput(engine: EmbeddedSpeechEngine, corpora: Corpus[]) {
  const results = [];
  for (const corpus of corpora) {
    const { pcm } = fixtures.sessionRecording(corpus.utterances);
    const log = new EventLog();
    const stream = await engine.open(config(`bench-${corpus.name}`), log.sink);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await feedAudio(stream, pcm);
    await stream.close();
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    const audioMs = pcm.length / 24;
    const wer = corpusWer([
      {
        reference: corpus.utterances.map((u) => u.reference).join(' '),
        hypothesis: log
          .finals()
          .map((f) => f.transcript ?? '')
          .join(' '),
      },
    ]);
    results.push({
      corpus: corpus.name,
      audioSeconds: round(audioMs / 1000, 1),
      wer: round(wer.wer, 3),
      words: wer.words,
      rtfCpu: round((used.user + used.system) / 1000 / audioMs, 3),
      rtfWall: round(wallMs / audioMs, 3),
    });
  }
  return results;
}

/** Each stream gets its own order of utterances, so streams do not speak in lockstep. */
function recordingFor(index: number, pool: fixtures.Utterance[], durationMs: number) {
  const chosen: fixtures.Utterance[] = [];
  let ms = GAP_MS;
  for (let k = 0; ms < durationMs; k++) {
    const utterance = pool[(index * 7 + k) % pool.length];
    chosen.push(utterance);
    ms += (utterance.clip.samples.length / utterance.clip.sampleRate) * 1000 + GAP_MS;
  }
  const { pcm, speech } = fixtures.sessionRecording(chosen, GAP_MS);
  // Latencies are measured against where the speech really is in each clip, not the clip's edges.
  const spans = speech.map((s, i) => {
    const span = speechSpan(fixtures.toSessionAudio(chosen[i].clip));
    return { startMs: s.startMs + span.startMs, endMs: s.startMs + span.endMs };
  });
  return { pcm, spans };
}

async function concurrencyStep(engine: EmbeddedSpeechEngine, n: number, pool: fixtures.Utterance[], turns = TURNS) {
  // A lone stream gets more speech, so its percentiles rest on more utterances.
  const durationMs = n === 1 ? STEP_AUDIO_MS * 4 : STEP_AUDIO_MS;
  const runs = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const log = new EventLog();
      return {
        log,
        stream: await engine.open(config(`bench-${n}-${i}`, turns), log.sink),
        ...recordingFor(i, pool, durationMs),
      };
    }),
  );
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu = process.cpuUsage();
  const { t0, maxLateMs } = await feedTogether(runs.map((r) => ({ stream: r.stream, pcm: r.pcm })));
  await sleep(1500); // the last turn's silence duration and its final
  const used = process.cpuUsage(cpu);
  loop.disable();
  await Promise.all(runs.map((r) => r.stream.close()));
  const latencies = runs.flatMap((r) => utteranceLatencies(r.log, t0, r.spans));
  const pick = (key: 'firstPartialMs' | 'finalAfterSpeechEndMs' | 'finalAfterEndpointMs') =>
    latencies.map((l) => l[key]).filter((v): v is number => v !== null);
  const firstPartial = summarize(pick('firstPartialMs'));
  const finalAfterEndpoint = summarize(pick('finalAfterEndpointMs'));
  const missing = latencies.filter((l) => l.finalAfterSpeechEndMs === null).length;
  const keptUp = missing === 0 && finalAfterEndpoint.p95 <= 300 && firstPartial.p95 <= 1000;
  return {
    streams: n,
    keptUp,
    utterances: latencies.length,
    missingFinals: missing,
    firstPartialMs: firstPartial,
    finalAfterSpeechEndMs: summarize(pick('finalAfterSpeechEndMs')),
    /** The same less the silence the client's turn detection waits for: the engine's own delay. */
    finalBeyondSilenceMs: summarize(pick('finalAfterSpeechEndMs').map((ms) => ms - turns.silenceDurationMs)),
    finalAfterEndpointMs: finalAfterEndpoint,
    partialRevisionRate: round(runs.reduce((sum, r) => sum + partialRevisionRate(r.log), 0) / n, 3),
    feederMaxLateMs: Math.round(maxLateMs),
    eventLoopDelayP99Ms: round(loop.percentile(99) / 1e6, 1),
    cpuCoresUsed: round((used.user + used.system) / 1000 / (durationMs + 1500), 2),
    /** CPU seconds per second of one stream's audio: the real-time factor of the whole pipeline. */
    cpuPerStream: round((used.user + used.system) / 1000 / (durationMs + 1500) / n, 3),
    rssMb: Math.round(rssMb),
  };
}

type Step = Awaited<ReturnType<typeof concurrencyStep>> & { retried?: boolean };

async function commitLatency(engine: EmbeddedSpeechEngine, pool: fixtures.Utterance[]) {
  const log = new EventLog();
  const stream = await engine.open(config('bench-commit', null), log.sink);
  const values: number[] = [];
  for (const utterance of pool.slice(0, 6)) {
    await feedTogether([
      { stream, pcm: fixtures.concatAudio([fixtures.toSessionAudio(utterance.clip), fixtures.silence(240)]) },
    ]);
    const final = log.next((e) => e.type === 'input_transcript' && e.done);
    const start = performance.now();
    stream.commit();
    await final;
    values.push(performance.now() - start);
  }
  await stream.close();
  return summarize(values);
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const engine = new EmbeddedSpeechEngine({ maxStreams: Math.max(...STEPS) + 2, warmDecoders: 1 });
  await engine.start();
  const corpora = await loadCorpora();
  const pool = corpora.flatMap((c) => c.utterances);

  const rates = await throughput(engine, corpora);
  const rssBefore = process.memoryUsage().rss / 2 ** 20;
  const decodersBefore = engine.loadedDecoders;
  const steps: Step[] = [];
  for (const n of STEPS) {
    let step: Step = await concurrencyStep(engine, n, pool);
    if (!step.keptUp) step = { ...(await concurrencyStep(engine, n, pool)), retried: true };
    steps.push(step);
    process.stdout.write(
      `  ${n} streams: ${step.keptUp ? 'kept up' : 'fell behind'} (first partial p95 ${step.firstPartialMs.p95} ms, final after endpoint p95 ${step.finalAfterEndpointMs.p95} ms, ${step.cpuCoresUsed} cores)\n`,
    );
    if (!step.keptUp) break;
  }
  const commit = await commitLatency(engine, pool);
  // The same single stream with a short end-of-turn silence: what "final after end of speech" costs
  // beyond the silence the client asked for.
  const quickTurns = await concurrencyStep(engine, 1, pool, { ...TURNS, silenceDurationMs: 200 });
  const last = steps[steps.length - 1];
  const perStreamMb = round((last.rssMb - rssBefore) / Math.max(1, engine.loadedDecoders - decodersBefore), 1);
  await engine.shutdown();

  const audio = rates.reduce((sum, r) => sum + r.audioSeconds, 0);
  const maxStreams = Math.max(0, ...steps.filter((s) => s.keptUp).map((s) => s.streams));
  const single = steps[0];
  const limit = steps.filter((s) => s.keptUp).at(-1);
  const loadAfter = loadavg();
  const cpuBoundStreams = Math.floor(2 / Math.max(0.01, single.cpuCoresUsed));
  const results = {
    settings: { decoder: DECODER_ARGS, tuning: DEFAULT_TUNING, turnDetection: TURNS, stepAudioMs: STEP_AUDIO_MS },
    // Other work on the machine competes for the same two cores; real-time figures depend on it,
    // and on this process's nice value when it was started with `nice -n`.
    contention: {
      loadAverage1mBefore: round(loadBefore[0], 2),
      loadAverage1mAfter: round(loadAfter[0], 2),
      niceValue: getPriority(),
    },
    throughput: { corpora: rates, rtfCpu: round(rates.reduce((s, r) => s + r.rtfCpu * r.audioSeconds, 0) / audio, 3) },
    singleStream: {
      firstPartialMs: single.firstPartialMs,
      partialRevisionRate: single.partialRevisionRate,
      finalAfterEndOfTurnMs: single.finalAfterEndpointMs,
      finalAfterCommitMs: commit,
      finalAfterSpeechEndMs: single.finalAfterSpeechEndMs,
      finalBeyondSilenceMs: single.finalBeyondSilenceMs,
      withSilenceDuration200Ms: {
        finalAfterSpeechEndMs: quickTurns.finalAfterSpeechEndMs,
        finalBeyondSilenceMs: quickTurns.finalBeyondSilenceMs,
        finalAfterEndOfTurnMs: quickTurns.finalAfterEndpointMs,
      },
    },
    concurrency: {
      maxRealtimeStreams: maxStreams,
      /** The largest step that kept up: its CPU per stream is the real-time factor at the limit. */
      atLimit: limit
        ? { streams: limit.streams, cpuCoresUsed: limit.cpuCoresUsed, realTimeFactor: limit.cpuPerStream }
        : null,
      steps,
    },
    memory: { perStreamMb, note: 'RSS growth per loaded pocketsphinx decoder (one per stream)' },
    /** What the CPU cost alone allows: two cores over one stream's measured share at real-time pace. */
    cpuBoundStreamEstimate: cpuBoundStreams,
  };
  // "Final after end of speech" is judged from the acoustic end of speech, less the silence the
  // client's turn_detection asks to wait for (500 ms here, OpenAI's default): a turn cannot end
  // sooner. Both the absolute figures and those with a 200 ms silence are reported beside it.
  const targets = {
    firstPartialP50Ms: 300,
    firstPartialP95Ms: 450,
    finalBeyondSilenceP95Ms: 300,
    concurrentStreams: 24,
    librivoxWer: 0.25,
  };
  // Without the Debian test recordings there is no LibriVox figure: the WER target is then not judged.
  const librivox = results.throughput.corpora.find((c) => c.corpus === 'librivox');
  const met =
    single.firstPartialMs.p50 < targets.firstPartialP50Ms &&
    single.firstPartialMs.p95 < targets.firstPartialP95Ms &&
    single.finalBeyondSilenceMs.p95 < targets.finalBeyondSilenceP95Ms &&
    maxStreams >= targets.concurrentStreams &&
    (librivox === undefined || librivox.wer <= targets.librivoxWer);
  const headline =
    `RTF ${results.throughput.rtfCpu}; first partial p50/p95 ${single.firstPartialMs.p50}/${single.firstPartialMs.p95} ms; ` +
    `final after end of speech p50/p95 ${single.finalAfterSpeechEndMs.p50}/${single.finalAfterSpeechEndMs.p95} ms (silence 500 ms), ` +
    `${quickTurns.finalAfterSpeechEndMs.p50}/${quickTurns.finalAfterSpeechEndMs.p95} ms (silence 200 ms), ${commit.p95} ms after commit; ` +
    `${maxStreams} real-time streams at ${limit?.cpuPerStream ?? '-'} CPU s per audio s each (load ${results.contention.loadAverage1mBefore})` +
    (librivox ? `; LibriVox WER ${librivox.wer}` : '');
  const out = writeReport({ name: 'engine', headline, results, targets, met });
  process.stdout.write(
    [
      `engine bench (${cpus().length} cores, ${quick ? 'quick' : 'full'}) → ${out}`,
      `  RTF ${results.throughput.rtfCpu} CPU-seconds per audio second; WER ${rates.map((r) => `${r.corpus} ${r.wer}`).join(', ')}`,
      `  1 stream (p50/p95): first partial ${single.firstPartialMs.p50}/${single.firstPartialMs.p95} ms; final after end of turn ${single.finalAfterEndpointMs.p50}/${single.finalAfterEndpointMs.p95} ms, after commit ${commit.p50}/${commit.p95} ms, after end of speech ${single.finalAfterSpeechEndMs.p50}/${single.finalAfterSpeechEndMs.p95} ms (silence 500 ms) or ${quickTurns.finalAfterSpeechEndMs.p50}/${quickTurns.finalAfterSpeechEndMs.p95} ms (silence 200 ms)`,
      `  concurrent real-time streams: ${maxStreams} measured (load average ${results.contention.loadAverage1mBefore} → ${results.contention.loadAverage1mAfter}, nice ${results.contention.niceValue}); ${cpuBoundStreams} by CPU cost alone; about ${perStreamMb} MB per stream`,
      `  targets ${met ? 'met' : 'missed'}`,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `engine bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
