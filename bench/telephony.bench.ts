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
 *
 * Then phone calls on the native Twilio endpoint beside 24 kHz Realtime sockets on the same
 * conversation path (support/voicechat-service.ts: the cascade on fake upstreams, the scripted
 * listener): for 1, 10 and 50 concurrent sessions (--quick: 1 and 10), each speaking a 2 s cycle
 * (480 ms voiced) in 20 ms frames (support/twilio-caller.ts: a secret minted per call, `start` with
 * it, mu-law `media`, marks echoed as they play):
 *   CPU per session  the service's CPU seconds per second of each session (/proc), and sessions per core
 *   voice to voice   last voiced frame sent → first answer audio received (Twilio: the first answer
 *                    `media` frame; the socket: the first `response.output_audio.delta`); it includes
 *                    the turn detector's silence wait (500 ms, the same on both paths)
 * --calls-only / --recognition-only run one part; the other's results are kept from the last report.
 * Results: bench/results/telephony.json.
 */
import { EmbeddedSpeechEngine } from '../src/engines/embedded/embedded-speech.engine';
import * as fixtures from '../src/engines/embedded/testing/speech-fixtures';
import { speechSpan, summarize } from '../src/engines/embedded/testing/speech-timing';
import { EventLog, feedAudio } from '../src/engines/embedded/testing/stream-driver';
import { corpusWer } from '../src/engines/embedded/testing/wer';
import { G711Stream, type G711Law } from '../src/platform/audio/g711';
import type { EngineStreamConfig } from '../src/session-core';
import { readReport, round, writeReport } from './support/report';
import { cyclePcm24k, openRealtimeSocket, speakingStep, type StepResult } from './support/spoken-turns';
import { mulawCycle, openTwilioCall } from './support/twilio-caller';
import { BENCH_KEY, startVoicechatService } from './support/voicechat-service';

const quick = process.argv.includes('--quick');
const CALL_STEPS = quick ? [1, 10] : [1, 10, 50];
const CALL_WINDOW_MS = quick ? 10_000 : 20_000;

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

type Recognition = Awaited<ReturnType<typeof measure>>;

async function recognition(): Promise<Recognition[]> {
  const engine = new EmbeddedSpeechEngine({ maxStreams: 2, warmDecoders: 1 });
  await engine.start();
  const corpora: { name: string; utterances: fixtures.Utterance[] }[] = [];
  for (const voice of ['rms', 'slt', 'awb'])
    corpora.push({ name: `flite-${voice}`, utterances: await fixtures.fliteUtterances(voice) });
  if (fixtures.hasTestData()) corpora.push({ name: 'librivox', utterances: fixtures.librivoxUtterances() });
  const results: Recognition[] = [];
  for (const corpus of corpora) {
    for (const line of ['24k', 'mulaw', 'alaw'])
      results.push(await measure(engine, corpus.name, corpus.utterances, line));
  }
  await engine.shutdown();
  return results;
}

interface Calls {
  steps: StepResult[];
  windowMs: number;
  /** When these figures were measured (a run of the other part alone keeps them). */
  measuredAt: string;
}

async function calls(): Promise<Calls> {
  const { service, close } = await startVoicechatService('telephony');
  const steps: StepResult[] = [];
  try {
    const pcm = cyclePcm24k();
    const mulaw = mulawCycle(pcm);
    for (const count of CALL_STEPS) {
      steps.push(
        await speakingStep(service, 'twilio', count, CALL_WINDOW_MS, () =>
          openTwilioCall(service.baseUrl, BENCH_KEY, mulaw),
        ),
      );
      steps.push(
        await speakingStep(service, 'websocket', count, CALL_WINDOW_MS, () =>
          openRealtimeSocket(service.baseUrl, BENCH_KEY, pcm),
        ),
      );
    }
  } finally {
    await close();
  }
  return { steps, windowMs: CALL_WINDOW_MS, measuredAt: new Date().toISOString() };
}

/** The last report's part that this run does not measure (its first shape held recognition alone). */
function previous(): { recognition: (Recognition & { measuredAt?: string })[]; calls: Calls | null } {
  const report = readReport('telephony');
  const results = report?.results as { recognition?: Recognition[]; calls?: Calls } | Recognition[] | undefined;
  if (Array.isArray(results))
    return { recognition: results.map((r) => ({ ...r, measuredAt: report!.date })), calls: null };
  return { recognition: results?.recognition ?? [], calls: results?.calls ?? null };
}

function recognitionHeadline(results: Recognition[]): string {
  const flite = (line: string) => results.filter((r) => r.line === line && r.corpus.startsWith('flite'));
  const pooled = (line: string) => {
    const rows = flite(line);
    const words = rows.reduce((s, r) => s + r.words, 0);
    return round(rows.reduce((s, r) => s + r.wer * r.words, 0) / words, 3);
  };
  const turns = (line: string) =>
    flite(line)
      .map((r) => `${r.turns}/${r.utterances}`)
      .join(' ');
  const eot = (line: string) => Math.round(flite(line).reduce((s, r) => s + r.endOfTurnMs.p50, 0) / 3);
  return (
    `flite WER 24 kHz ${pooled('24k')}, mu-law 8 kHz ${pooled('mulaw')}, A-law ${pooled('alaw')}; ` +
    `speech end found p50 ${eot('24k')} / ${eot('mulaw')} ms after the real end (24 kHz / mu-law; the turn ends ` +
    `500 ms later); turns found ${turns('24k')} / ${turns('mulaw')}`
  );
}

function callsHeadline(result: Calls): string {
  const at = (path: string) => result.steps.filter((r) => r.path === path).at(-1)!;
  const phone = at('twilio');
  const socket = at('websocket');
  return (
    `${phone.sessions} phone calls: ${phone.cpuSecondsPerSessionSecond} CPU s per call-second ` +
    `(${phone.sessionsPerCore}/core) vs ${socket.cpuSecondsPerSessionSecond} for a 24 kHz socket; ` +
    `voice to voice p50 ${phone.voiceToVoiceMs.p50} ms (socket ${socket.voiceToVoiceMs.p50} ms) at load ${phone.loadAverage}`
  );
}

async function main(): Promise<void> {
  const last = previous();
  const recognitionRows = process.argv.includes('--calls-only') ? last.recognition : await recognition();
  const callFigures = process.argv.includes('--recognition-only') ? last.calls : await calls();
  writeReport({
    name: 'telephony',
    headline: [
      recognitionRows.length > 0 ? recognitionHeadline(recognitionRows) : null,
      callFigures ? callsHeadline(callFigures) : null,
    ]
      .filter((part) => part !== null)
      .join('; '),
    results: { recognition: recognitionRows, calls: callFigures },
    targets: {
      note: 'measured, not gated: what 8 kHz costs the recogniser and turn detection, and what a phone call costs beside a 24 kHz session',
    },
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
