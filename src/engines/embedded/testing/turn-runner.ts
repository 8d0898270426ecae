/**
 * Plays labelled turns (turn-set.ts) into a running service as a microphone would, one 80 ms chunk
 * as soon as it has been "spoken", and scores where the service ended each turn: `/v2/listen` (the
 * end-of-turn model: EndOfTurn) or, as the fixed-silence baseline, `/v1/listen` (speech_final after
 * the endpointing silence). Audio time t is spoken at wall time t0 + t.
 */
import WebSocket from 'ws';
import { summarize } from './speech-timing';
import type { LabelledTurn } from './turn-set';

const CHUNK_MS = 80;
/** How long after the turn's audio an end is still awaited. */
const END_GRACE_MS = 1500;

export interface TurnObservation {
  turn: LabelledTurn;
  /** Turn ends the service reported before the stream was closed, in ms after the last voiced sample. */
  endsAfterSpeechMs: number[];
  /**
   * Where on the audio timeline the service put those ends (Flux: EndOfTurn's audio_window_end, the
   * point the session judged the turn over), in ms after the last voiced sample.
   */
  endsAtAudioMs: number[];
  /** Ends reported while the user was still to speak (inside a pause, or earlier). */
  earlyEnds: number;
  eager: number;
  resumed: number;
  transcripts: string[];
  /** The last turn message before the stream was closed (what the service thought then). */
  lastSeen: string;
}

export interface TurnScore {
  turns: number;
  /** Correct ends / all ends. */
  precision: number;
  /** Turns with an end after their last voiced sample / turns. */
  recall: number;
  /** Share of paused turns ended inside a pause. */
  falseEndOnPauses: number;
  latencyMs: { n: number; p50: number; p95: number; max: number };
  /** Eager ends withdrawn (TurnResumed) or never followed by their turn's end / eager ends. */
  eagerWasted: number | null;
}

export type TurnDialect = { kind: 'flux'; query: string } | { kind: 'listen'; query: string };

export async function playTurn(
  baseWsUrl: string,
  apiKey: string,
  dialect: TurnDialect,
  turn: LabelledTurn,
  options: { chunkMs?: number } = {},
): Promise<TurnObservation> {
  const chunkMs = options.chunkMs ?? CHUNK_MS;
  const path = dialect.kind === 'flux' ? '/v2/listen' : '/v1/listen';
  const ws = new WebSocket(`${baseWsUrl}${path}?${dialect.query}`, { headers: { authorization: `Token ${apiKey}` } });
  const messages: Array<{ at: number; message: Record<string, unknown> }> = [];
  const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
  ws.on('message', (data) => messages.push({ at: performance.now(), message: JSON.parse(String(data)) }));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  // The session (engine stream, decoder) is ready once the service says so: a cold start is not a turn.
  if (dialect.kind === 'flux') {
    while (!messages.some((m) => m.message.type === 'Connected')) await new Promise((r) => setTimeout(r, 10));
  } else {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const pcm = Buffer.from(turn.pcm.buffer, turn.pcm.byteOffset, turn.pcm.byteLength);
  const chunkBytes = chunkMs * 48;
  const t0 = performance.now();
  for (let i = 0; i * chunkBytes < pcm.length; i++) {
    const dueAt = t0 + (i + 1) * chunkMs;
    const wait = dueAt - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    ws.send(pcm.subarray(i * chunkBytes, (i + 1) * chunkBytes));
  }
  const isEnd = (m: Record<string, unknown>) =>
    dialect.kind === 'flux'
      ? m.type === 'TurnInfo' && m.event === 'EndOfTurn'
      : m.type === 'Results' && m.speech_final === true;
  // A busy machine may deliver the end after the last chunk: wait for it a little (not forever: a
  // turn the service never ends is a miss, and CloseStream would end it anyway).
  const waitUntil = performance.now() + END_GRACE_MS;
  while (!messages.some((m) => m.at >= t0 + turn.speechEndMs && isEnd(m.message)) && performance.now() < waitUntil) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const streamedAt = performance.now();
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  await closed;
  const before = messages.filter((m) => m.at <= streamedAt);
  const ends = before.filter((m) => isEnd(m.message));
  const speechEndAt = t0 + turn.speechEndMs;
  return {
    turn,
    endsAfterSpeechMs: ends.filter((m) => m.at >= speechEndAt).map((m) => m.at - speechEndAt),
    endsAtAudioMs: ends
      .filter((m) => m.at >= speechEndAt)
      .map((m) =>
        dialect.kind === 'flux'
          ? Number(m.message.audio_window_end) * 1000 - turn.speechEndMs
          : (Number(m.message.start) + Number(m.message.duration)) * 1000 - turn.speechEndMs,
      ),
    earlyEnds: ends.filter((m) => m.at < speechEndAt).length,
    eager: before.filter((m) => m.message.event === 'EagerEndOfTurn').length,
    resumed: before.filter((m) => m.message.event === 'TurnResumed').length,
    lastSeen: JSON.stringify(before.at(-1)?.message ?? null),
    transcripts: ends.map((m) =>
      dialect.kind === 'flux'
        ? String(m.message.transcript)
        : String((m.message.channel as { alternatives: Array<{ transcript: string }> }).alternatives[0].transcript),
    ),
  };
}

/** Plays every turn, `parallel` sessions at a time. */
export async function playTurns(
  baseWsUrl: string,
  apiKey: string,
  dialect: TurnDialect,
  turns: LabelledTurn[],
  parallel = 2,
): Promise<TurnObservation[]> {
  const out: TurnObservation[] = new Array<TurnObservation>(turns.length);
  let next = 0;
  const worker = async () => {
    while (next < turns.length) {
      const index = next++;
      out[index] = await playTurn(baseWsUrl, apiKey, dialect, turns[index]);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return out;
}

export function scoreTurns(observations: TurnObservation[]): TurnScore {
  let correct = 0;
  let ends = 0;
  let recalled = 0;
  let pausedTurns = 0;
  let pausedEarly = 0;
  let eager = 0;
  let wasted = 0;
  const latencies: number[] = [];
  for (const o of observations) {
    const right = o.endsAfterSpeechMs.length > 0 ? 1 : 0;
    correct += right;
    ends += right + o.earlyEnds;
    recalled += right;
    if (right) latencies.push(o.endsAfterSpeechMs[0]);
    if (o.turn.pauses.length > 0) {
      pausedTurns++;
      if (o.earlyEnds > 0) pausedEarly++;
    }
    eager += o.eager;
    wasted += o.resumed + Math.max(0, o.eager - o.resumed - right);
  }
  const round3 = (v: number) => Math.round(v * 1000) / 1000;
  return {
    turns: observations.length,
    precision: ends === 0 ? 0 : round3(correct / ends),
    recall: round3(recalled / Math.max(1, observations.length)),
    falseEndOnPauses: round3(pausedEarly / Math.max(1, pausedTurns)),
    latencyMs: summarize(latencies),
    eagerWasted: eager === 0 ? null : round3(wasted / eager),
  };
}
