/**
 * What phone audio costs the recogniser and turn detection: the same sentences at the session's
 * 24 kHz and as a phone line carries them (24 kHz → 8 kHz mu-law in 20 ms frames → decoded and
 * resampled back to 24 kHz, exactly the Realtime and Deepgram sockets' G.711 path).
 *
 *   npm run build && node dist/bench/telephony.bench.js
 *
 * Per corpus (flite's three voices over the 20 everyday sentences, and LibriVox/cards when
 * pocketsphinx's test data is installed) and per line: WER of the finals; turns found against
 * utterances spoken; where the turn's speech was found to end (`speech_stopped`, after which the
 * turn ends once server_vad's 500 ms of silence have passed) minus the real end of speech (the
 * clip's own level, speech-timing.ts), on the audio's timeline, so the figure does not depend on the
 * machine's load.
 * Results: bench/results/telephony.json.
 */
import { EmbeddedSpeechEngine } from '../src/engines/embedded/embedded-speech.engine';
import * as fixtures from '../src/engines/embedded/testing/speech-fixtures';
import { speechSpan, summarize } from '../src/engines/embedded/testing/speech-timing';
import { EventLog, feedAudio } from '../src/engines/embedded/testing/stream-driver';
import { corpusWer } from '../src/engines/embedded/testing/wer';
import { G711Stream, type G711Law } from '../src/platform/audio/g711';
import type { EngineStreamConfig } from '../src/session-core';
import { round, writeReport } from './support/report';

const GAP_MS = 1000;
const config = (sessionId: string): EngineStreamConfig => ({
  sessionId,
  type: 'transcription',
  model: 'vendor-asr-streaming',
  language: 'en',
  voice: null,
  turnDetection: { type: 'server_vad', threshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300 },
});

/** 24 kHz pcm16 → what the session hears from a G.711 line (20 ms frames, as Twilio sends). */
export function overPhoneLine(pcm: Int16Array, law: G711Law): Int16Array {
  const down = new G711Stream(law, 'out', 24_000);
  const up = new G711Stream(law, 'in', 24_000);
  const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 960) parts.push(up.push(down.push(bytes.subarray(at, at + 960))));
  const joined = Buffer.concat(parts);
  return new Int16Array(joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.length));
}

async function measure(engine: EmbeddedSpeechEngine, name: string, utterances: fixtures.Utterance[], line: string) {
  const { pcm: clean, speech } = fixtures.sessionRecording(utterances, GAP_MS);
  const pcm = line === '24k' ? clean : overPhoneLine(clean, line === 'alaw' ? 'alaw' : 'mulaw');
  const ends = speech.map((s, i) => s.startMs + speechSpan(fixtures.toSessionAudio(utterances[i].clip)).endMs);
  const log = new EventLog();
  const stream = await engine.open(config(`bench-${name}-${line}`), log.sink);
  await feedAudio(stream, pcm);
  await stream.close();
  const wer = corpusWer([
    {
      reference: utterances.map((u) => u.reference).join(' '),
      hypothesis: log
        .finals()
        .map((f) => f.transcript ?? '')
        .join(' '),
    },
  ]);
  // Each real end is matched with the first speech_stopped after it (a turn split earlier is not an end).
  const stops = log.of('speech_stopped').map((e) => e.audioEndMs);
  const lags: number[] = [];
  for (const end of ends) {
    const stop = stops.find((s) => s >= end - 200);
    if (stop !== undefined && stop < end + 3000) lags.push(stop - end);
  }
  const lag = summarize(lags);
  return {
    corpus: name,
    line,
    words: wer.words,
    wer: round(wer.wer, 3),
    utterances: utterances.length,
    turns: stops.length,
    endOfTurnMs: { p50: lag.p50, p95: lag.p95, matched: lag.n },
  };
}

async function main(): Promise<void> {
  const engine = new EmbeddedSpeechEngine({ maxStreams: 2, warmDecoders: 1 });
  await engine.start();
  const corpora: { name: string; utterances: fixtures.Utterance[] }[] = [];
  for (const voice of ['rms', 'slt', 'awb'])
    corpora.push({ name: `flite-${voice}`, utterances: await fixtures.fliteUtterances(voice) });
  if (fixtures.hasTestData()) corpora.push({ name: 'librivox', utterances: fixtures.librivoxUtterances() });
  const results: Awaited<ReturnType<typeof measure>>[] = [];
  for (const corpus of corpora) {
    for (const line of ['24k', 'mulaw', 'alaw'])
      results.push(await measure(engine, corpus.name, corpus.utterances, line));
  }
  await engine.shutdown();
  const pooled = (line: string) => {
    const rows = results.filter((r) => r.line === line && r.corpus.startsWith('flite'));
    const words = rows.reduce((s, r) => s + r.words, 0);
    return round(rows.reduce((s, r) => s + r.wer * r.words, 0) / words, 3);
  };
  const turns = (line: string) =>
    results
      .filter((r) => r.line === line && r.corpus.startsWith('flite'))
      .map((r) => `${r.turns}/${r.utterances}`)
      .join(' ');
  const eot = (line: string) =>
    Math.round(
      results
        .filter((r) => r.line === line && r.corpus.startsWith('flite'))
        .reduce((s, r) => s + r.endOfTurnMs.p50, 0) / 3,
    );
  const flite = { '24k': pooled('24k'), mulaw: pooled('mulaw'), alaw: pooled('alaw') };
  writeReport({
    name: 'telephony',
    headline:
      `flite WER 24 kHz ${flite['24k']}, mu-law 8 kHz ${flite.mulaw}, A-law ${flite.alaw}; ` +
      `speech end found p50 ${eot('24k')} / ${eot('mulaw')} ms after the real end (24 kHz / mu-law; the turn ends ` +
      `500 ms later); turns found ${turns('24k')} / ${turns('mulaw')}`,
    results,
    targets: { note: 'measured, not gated: what 8 kHz costs the recogniser and turn detection' },
    met: true,
  });
}

void main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
