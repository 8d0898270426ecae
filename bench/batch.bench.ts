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
 * 4. A live stream's first-partial latency (real-time pace, 5 utterances) alone, and while 4 files are
 *    transcribed without pause beside it on the same engine (8 streams: batch may use 6).
 * Results: bench/results/batch.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EmbeddedSpeechEngine } from '../src/engines/embedded/embedded-speech.engine';
import { utteranceLatencies } from '../src/engines/embedded/testing/latency-probe';
import * as fixtures from '../src/engines/embedded/testing/speech-fixtures';
import { summarize } from '../src/engines/embedded/testing/speech-timing';
import { EventLog, feedAudio } from '../src/engines/embedded/testing/stream-driver';
import { corpusWer } from '../src/engines/embedded/testing/wer';
import { BatchTranscriber } from '../src/modules/transcriptions/batch/batch-transcriber';
import { SPLIT_DEFAULTS, splitAtSilences } from '../src/modules/transcriptions/batch/silence-splitter';
import { StreamBudget } from '../src/modules/transcriptions/batch/stream-budget';
import { decodeAudio, type DecodedAudio } from '../src/modules/transcriptions/decoding/ffmpeg-decoder';
import { audioFile, spokenSentences } from '../src/modules/transcriptions/testing/audio-files';
import { DEFAULT_VAD } from '../src/session-core';
import { round, writeReport } from './support/report';

const quick = process.argv.includes('--quick');
const FILE_MS = quick ? 20_000 : 60_000;
const MAX_STREAMS = 8;
/** The service's default TRANSCRIPTION_MAX_STREAMS; `--batch-streams=N` to compare. */
const BATCH_STREAMS = Number(process.argv.find((a) => a.startsWith('--batch-streams='))?.split('=')[1] ?? 2);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'batch-bench-'));
  const engine = new EmbeddedSpeechEngine({ maxStreams: MAX_STREAMS, warmDecoders: MAX_STREAMS });
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

    const budget = new StreamBudget(() => engine.capacity(), {
      queueSize: 64,
      queueTimeoutMs: 600_000,
      maxStreams: BATCH_STREAMS,
    });
    const transcribe = async (audio: DecodedAudio, parts: number, signal = new AbortController().signal) => {
      await budget.first();
      const pieces = splitAtSilences(audio.profile, { ...SPLIT_DEFAULTS, parts });
      const segments = await new BatchTranscriber(engine, budget).run({
        sessionId: 'bench',
        model: 'vendor-asr-streaming',
        language: 'en',
        pcmPath: audio.pcmPath,
        pieces,
        signal,
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

    // 4. A live stream's first partials, alone and beside batch work.
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
      return summarize(
        utteranceLatencies(log, t0, speech)
          .map((u) => u.firstPartialMs)
          .filter((v): v is number => v !== null),
      );
    };
    const alone = await live();
    console.log('live alone', alone);
    const stop = new AbortController();
    let batchAudioS = 0;
    const background = Array.from({ length: 4 }, async () => {
      while (!stop.signal.aborted) {
        await transcribe(wav, MAX_STREAMS).catch(() => undefined);
        if (!stop.signal.aborted) batchAudioS += audioS;
      }
    });
    await new Promise((r) => setTimeout(r, 1000));
    const withBatch = await live();
    stop.abort();
    await Promise.all(background);
    console.log('live beside batch', withBatch, 'batch audio s meanwhile', batchAudioS);

    const p50Delta = withBatch.p50 - alone.p50;
    writeReport({
      name: 'batch',
      headline: `${rtf.audioS} s file: ${rtf.cpuPerAudioS} CPU-s per audio-s (one core ${round(1 / rtf.cpuPerAudioS, 1)}x real time), wall RTF ${pieces.at(-1)!.wallRtf} in 4 pieces; live first partial p50 ${Math.round(alone.p50)} → ${Math.round(withBatch.p50)} ms beside batch`,
      results: {
        fileAudioS: rtf.audioS,
        oneStream: rtf,
        mp3DecodeMs: Math.round(mp3DecodeMs),
        mp3AudioS: round(mp3.durationMs / 1000, 2),
        mp3DecodeRtf: round(mp3DecodeMs / 1000 / audioS, 4),
        pieces,
        throughput,
        liveFirstPartialMs: { alone, besideBatch: withBatch, batchAudioSMeanwhile: round(batchAudioS, 1) },
      },
      targets: { cpuPerAudioS: '< 1 (faster than real time on one core)', liveFirstPartialP50DeltaMs: '< 150' },
      met: rtf.cpuPerAudioS < 1 && p50Delta < 150,
    });
  } finally {
    await engine.shutdown();
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
