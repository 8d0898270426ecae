/**
 * Batch transcription on the embedded engine, through the module's own path (ffmpeg decode, silence
 * split, pieces on engine streams under the stream budget), without HTTP:
 *
 *   npm run build && node dist/bench/batch.bench.js [--quick]
 *
 * 1. Real-time factor per core: a file of at least 60 s (flite speech with pauses; 88 s, 20 s with --quick) on one stream; CPU seconds of
 *    this process (the engine's decoding threads included) per audio second, and wall time; ffmpeg's
 *    decode of the same file as MP3, timed apart (it runs in a child).
 * 2. The same file cut into 1, 2, 4 pieces at once: wall real-time factor.
 * 3. Throughput: N such files at once (N = 1, 2, 4), audio seconds per wall second.
 * 4. A live stream's first-partial latency (real-time pace, 5 utterances per run) alone, and while 4
 *    files are transcribed without pause beside it: in the batch process (BATCH_STREAMS streams at nice
 *    BATCH_NICE, as the service does) and, for comparison, on the live engine's own streams (as before
 *    the batch process); rounds interleave the three. With the batch process's wall real-time factor.
 * Results: bench/results/batch.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BatchProcessEngine } from '../src/engines/embedded/batch-process/batch-process-engine';
import { EmbeddedSpeechEngine } from '../src/engines/embedded/embedded-speech.engine';
import { utteranceLatencies } from '../src/engines/embedded/testing/latency-probe';
import * as fixtures from '../src/engines/embedded/testing/speech-fixtures';
import { summarize } from '../src/engines/embedded/testing/speech-timing';
import { EventLog, feedAudio } from '../src/engines/embedded/testing/stream-driver';
import { corpusWer } from '../src/engines/embedded/testing/wer';
import { BatchTranscriber } from '../src/modules/transcriptions/batch/batch-transcriber';
import { SPLIT_DEFAULTS, splitAtSilences } from '../src/modules/transcriptions/batch/silence-splitter';
import { StreamBudget } from '../src/modules/transcriptions/batch/stream-budget';
import {
  decodeAudio,
  type DecodedAudio,
  PCM_RATE,
  PROFILE_WINDOW,
} from '../src/modules/transcriptions/decoding/ffmpeg-decoder';
import { audioFile, spokenSentences } from '../src/modules/transcriptions/testing/audio-files';
import { DEFAULT_VAD, type SpeechEngine } from '../src/session-core';
import { round, writeReport } from './support/report';

const quick = process.argv.includes('--quick');
const FILE_MS = quick ? 20_000 : 60_000;
const MAX_STREAMS = 8;
/** The service's default TRANSCRIPTION_MAX_STREAMS; `--batch-streams=N` to compare. */
const BATCH_STREAMS = Number(process.argv.find((a) => a.startsWith('--batch-streams='))?.split('=')[1] ?? 2);
/** The embedded kind's default batchNice; `--nice=N` to compare. */
const BATCH_NICE = Number(process.argv.find((a) => a.startsWith('--nice='))?.split('=')[1] ?? 10);
/** Rounds of section 4 (alone, beside batch on the live engine, beside the batch process). */
const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? (quick ? 2 : 3));

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'batch-bench-'));
  const engine = new EmbeddedSpeechEngine({ maxStreams: MAX_STREAMS, warmDecoders: MAX_STREAMS });
  // Kept for the whole run: the service's child stays while batch work keeps coming, and a restart
  // between rounds (60 s idle) would measure its warm-up instead.
  const batchEngine = new BatchProcessEngine({ maxStreams: BATCH_STREAMS, nice: BATCH_NICE, idleExitMs: 3_600_000 });
  try {
    await engine.start();
    const spoken = await spokenSentences(fixtures.FLITE_SENTENCES.slice(0, 10), FILE_MS);
    const audioS = spoken.durationMs / 1000;
    writeFileSync(join(dir, 'file.mp3'), audioFile(spoken.pcm, 'mp3', dir));
    writeFileSync(join(dir, 'file.wav'), audioFile(spoken.pcm, 'wav-24k-mono', dir));

    const decodeStarted = performance.now();
    const mp3 = await decode(join(dir, 'file.mp3'), 'mp3', join(dir, 'mp3.pcm'));
    const mp3DecodeMs = performance.now() - decodeStarted;
    const wav = await decode(join(dir, 'file.wav'), 'wav', join(dir, 'wav.pcm'));

    const sharedBudget = new StreamBudget(() => engine.capacity(), {
      queueSize: 64,
      queueTimeoutMs: 600_000,
      maxStreams: BATCH_STREAMS,
    });
    const processBudget = new StreamBudget(() => batchEngine.capacity(), {
      queueSize: 64,
      queueTimeoutMs: 600_000,
      maxStreams: BATCH_STREAMS,
      sharedWithLive: false,
    });
    const transcribe = async (
      audio: DecodedAudio,
      parts: number,
      options: {
        engine?: SpeechEngine;
        budget?: StreamBudget;
        signal?: AbortSignal;
        pieceDone?: (audioS: number) => void;
      } = {},
    ) => {
      const budget = options.budget ?? sharedBudget;
      await budget.first();
      const pieces = splitAtSilences(audio.profile, { ...SPLIT_DEFAULTS, parts });
      let done = 0;
      const segments = await new BatchTranscriber(options.engine ?? engine, budget).run({
        sessionId: 'bench',
        model: 'vendor-asr-streaming',
        language: 'en',
        pcmPath: audio.pcmPath,
        pieces,
        signal: options.signal ?? new AbortController().signal,
        onPieceDone: () => {
          const piece = pieces[done++];
          options.pieceDone?.(((piece.to - piece.from) * PROFILE_WINDOW) / PCM_RATE);
        },
      });
      return { pieces: pieces.length, text: segments.map((s) => s.text).join(' ') };
    };

    // 1. One stream: CPU per audio second.
    const cpu = process.cpuUsage();
    const started = performance.now();
    const single = await transcribe(wav, 1);
    const wallS = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuS = (used.user + used.system) / 1e6;
    const wer = corpusWer([{ reference: spoken.sentences.join(' '), hypothesis: single.text }]).wer;
    const rtf = {
      audioS: round(audioS, 1),
      cpuPerAudioS: round(cpuS / audioS, 3),
      wallRtf: round(wallS / audioS, 3),
      wer: round(wer, 3),
    };
    console.log('one stream', rtf, 'mp3 decode ms', Math.round(mp3DecodeMs));

    // 2. One file in pieces.
    const pieces: Array<{ parts: number; pieces: number; wallRtf: number }> = [];
    for (const parts of [1, 2, 4]) {
      const t = performance.now();
      const run = await transcribe(wav, parts);
      pieces.push({ parts, pieces: run.pieces, wallRtf: round((performance.now() - t) / 1000 / audioS, 3) });
      console.log('pieces', pieces.at(-1));
    }

    // 3. N files at once.
    const throughput: Array<{ files: number; audioSPerWallS: number }> = [];
    for (const files of quick ? [1, 2] : [1, 2, 4]) {
      const t = performance.now();
      await Promise.all(Array.from({ length: files }, () => transcribe(wav, MAX_STREAMS)));
      throughput.push({ files, audioSPerWallS: round((files * audioS) / ((performance.now() - t) / 1000), 2) });
      console.log('throughput', throughput.at(-1));
    }

    // The batch process (as the service runs batch work): one file on its streams, wall real-time factor.
    await transcribe(wav, BATCH_STREAMS, { engine: batchEngine, budget: processBudget }); // starts the child
    const processStarted = performance.now();
    await transcribe(wav, BATCH_STREAMS, { engine: batchEngine, budget: processBudget });
    const processRtf = round((performance.now() - processStarted) / 1000 / audioS, 3);
    console.log('batch process wall RTF', processRtf);

    // 4. A live stream's first partials, alone and beside batch work: batch on the live engine's own
    // streams (as before batch-process/) and in the batch process. Rounds interleave the three, so a
    // shared machine's load falls on each alike.
    const live = async () => {
      const utterances = await fixtures.fliteUtterances('slt', fixtures.FLITE_SENTENCES.slice(10, 15));
      const { pcm, speech } = fixtures.sessionRecording(utterances, 1200);
      const log = new EventLog();
      const stream = await engine.open(
        {
          sessionId: 'live',
          type: 'transcription',
          model: 'vendor-asr-streaming',
          language: 'en',
          voice: null,
          turnDetection: DEFAULT_VAD,
        },
        log.sink,
      );
      const pushedAt = await feedAudio(stream, pcm, { realtime: true });
      await stream.close();
      const t0 = pushedAt[0] - 80;
      return utteranceLatencies(log, t0, speech)
        .map((u) => u.firstPartialMs)
        .filter((v): v is number => v !== null);
    };
    /** The live stream's first partials while 4 files are transcribed without pause on `on`. */
    const besideBatch = async (on: 'shared' | 'process') => {
      const budget = on === 'shared' ? sharedBudget : processBudget;
      const target = on === 'shared' ? engine : batchEngine;
      const stop = new AbortController();
      let batchAudioS = 0;
      const background = Array.from({ length: 4 }, async () => {
        while (!stop.signal.aborted) {
          await transcribe(wav, MAX_STREAMS, {
            engine: target,
            budget,
            signal: stop.signal,
            pieceDone: (seconds) => (batchAudioS += seconds),
          }).catch(() => undefined);
        }
      });
      await new Promise((r) => setTimeout(r, 1000));
      const started = performance.now();
      const firstPartials = await live();
      const wallS = (performance.now() - started) / 1000;
      stop.abort();
      await Promise.all(background);
      return { firstPartials, batchAudioSPerWallS: batchAudioS / wallS };
    };
    const firstPartials: Record<'alone' | 'shared' | 'process', number[]> = { alone: [], shared: [], process: [] };
    const batchSpeed: Record<'shared' | 'process', number[]> = { shared: [], process: [] };
    for (let round = 0; round < ROUNDS; round++) {
      firstPartials.alone.push(...(await live()));
      for (const on of round % 2 === 0 ? (['shared', 'process'] as const) : (['process', 'shared'] as const)) {
        const run = await besideBatch(on);
        firstPartials[on].push(...run.firstPartials);
        batchSpeed[on].push(round2(run.batchAudioSPerWallS));
      }
      console.log('round', round + 1, {
        alone: summarize(firstPartials.alone),
        shared: summarize(firstPartials.shared),
        process: summarize(firstPartials.process),
        batchSpeed,
        load: loadavg().map(round2),
      });
    }
    const alone = summarize(firstPartials.alone);
    const withShared = summarize(firstPartials.shared);
    const withProcess = summarize(firstPartials.process);

    const p50Delta = withProcess.p50 - alone.p50;
    writeReport({
      name: 'batch',
      headline: `${rtf.audioS} s file: ${rtf.cpuPerAudioS} CPU-s per audio-s (one core ${round(1 / rtf.cpuPerAudioS, 1)}x real time), wall RTF ${pieces.at(-1)!.wallRtf} in 4 pieces; live first partial p50 ${Math.round(alone.p50)} ms alone, ${Math.round(withProcess.p50)} ms beside batch in its process (nice ${BATCH_NICE}), ${Math.round(withShared.p50)} ms beside batch on the live engine`,
      results: {
        fileAudioS: rtf.audioS,
        oneStream: rtf,
        mp3DecodeMs: Math.round(mp3DecodeMs),
        mp3AudioS: round(mp3.durationMs / 1000, 2),
        mp3DecodeRtf: round(mp3DecodeMs / 1000 / audioS, 4),
        pieces,
        throughput,
        batchProcess: { streams: BATCH_STREAMS, nice: BATCH_NICE, wallRtf: processRtf },
        liveFirstPartialMs: {
          rounds: ROUNDS,
          alone,
          besideBatchInProcess: withProcess,
          besideBatchOnLiveEngine: withShared,
          batchAudioSPerWallS: batchSpeed,
        },
      },
      targets: {
        cpuPerAudioS: '< 1 (faster than real time on one core)',
        batchProcessWallRtf: '< 1 (faster than real time)',
        liveFirstPartialP50DeltaMs: '< 150',
      },
      met: rtf.cpuPerAudioS < 1 && processRtf < 1 && p50Delta < 150,
    });
  } finally {
    await engine.shutdown();
    await batchEngine.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
}

function decode(inputPath: string, container: 'mp3' | 'wav', pcmPath: string): Promise<DecodedAudio> {
  return decodeAudio({ inputPath, container, pcmPath, maxAudioSeconds: 3600, timeoutMs: 120_000 });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
