/**
 * Reads one voicechat conversation (the client's arrivals, the engine tap's marks, the fakes'
 * requests) into per-turn voice-to-voice latencies with their parts, and the barge-ins.
 *
 * Voice to voice: from the turn's last voiced sample to the first audible frame of the answer the
 * client receives. Its parts follow the milestones one after another, so they add up to it:
 *   end of turn       last voiced sample → the end of the turn on the server (the session commits
 *                     the engine; with fixed silence, the engine's own speech_stopped)
 *   recognition final → the engine's final transcript
 *   answer            → the engine starts its response (the persona's text; the cascade's
 *                     response starts with its first audio, so there this holds chat and speech)
 *   synthesis         → the engine's first output chunk
 *   transport         → the answer's first frame reaches the client (pacer, rendering, socket)
 *   lead-in           → its first audible frame does (quiet audio at the answer's start, which
 *                     the pacer sends in real time like the rest)
 * Barge-in: from sending the chunk that holds the first voiced sample of a turn spoken over an
 * answer, to the last frame of that answer the client receives.
 */
import type { RecordedRequest } from '../../src/engines/cascade/testing/recording-server';
import type { Arrival, SpokenTurn } from '../../src/engines/embedded/testing/voice-to-voice';
import type { TapMark } from './engine-tap';

export interface VoiceTurn {
  id: string;
  /** ms; null: no answer was heard. */
  voiceToVoiceMs: number | null;
  parts: Record<'endOfTurn' | 'recognitionFinal' | 'answer' | 'synthesis' | 'transport' | 'leadIn', number> | null;
  /** What the client alone sees, ms after the last voiced sample. */
  client: { finalMs: number | null; endOfTurnEventMs: number | null; responseStartedMs: number | null };
  /** speech_stopped end_ms minus where the voice really ended (input timeline). */
  speechStoppedErrorMs: number | null;
  /** Answers that started before the user had finished. */
  earlyAnswers: number;
  /** An eager answer was prepared for this turn before it ended. */
  prepared: boolean;
  /** The cascade's path through its fakes (null for other engines). */
  cascade: CascadeParts | null;
}

export interface CascadeParts {
  /** final → the chat request arrives at the fake. */
  toChat: number;
  /** The chat fake answering (its own time). */
  chatFake: number;
  /** → the speech request arrives at the fake. */
  toSpeech: number;
  /** The speech fake's first audio (its own time). */
  speechFake: number;
  /** → the engine's first audible chunk. */
  toAudio: number;
  /** Voice to voice less the end of turn and the fakes' own time. */
  gatewayShare: number;
}

export interface BargeIn {
  id: string;
  /** First voiced sample sent → last answer frame received, ms (0 when none came after it). */
  latencyMs: number;
  /** First voiced sample sent → the engine suspected speech (the session held the answer). */
  suspectedMs: number | null;
  /** First voiced sample sent → the engine confirmed speech (VAD onset). */
  onsetMs: number | null;
  /** Answer audio the client still held to play when the last frame arrived, ms. */
  heldMs: number | null;
  /** Answer frames received after the client got response_done (interrupted). */
  framesAfterDone: number;
}

export interface Fakes {
  chat: RecordedRequest[];
  speech: RecordedRequest[];
}

const OUT = 'session.output_audio.delta';

export function readTurns(
  spoken: SpokenTurn[],
  arrivals: Arrival[],
  marks: TapMark[],
  fakes: Fakes | null,
): { turns: VoiceTurn[]; bargeIns: BargeIn[]; suspicionsRuledOut: number; errors: string[] } {
  const startedAt = new Map(arrivals.filter((a) => a.type === 'turn.response_started').map((a) => [a.itemId, a.at]));
  const answers: Array<string | null> = [];
  const turns = spoken.map((s) => {
    const audible = arrivals.find(
      (a) => a.type === OUT && a.audible && a.at >= s.speechEndAt && (startedAt.get(a.itemId) ?? -1) >= s.speechSentAt,
    );
    answers.push(audible?.itemId ?? null);
    return readTurn(s, audible ?? null, arrivals, marks, fakes, startedAt);
  });
  const bargeIns: BargeIn[] = [];
  for (let i = 1; i < spoken.length; i++) {
    const answer = answers[i - 1];
    if (answer === null) continue;
    const b = readBargeIn(spoken[i], answer, arrivals, marks);
    if (b) bargeIns.push(b);
  }
  const errors = [...new Set(arrivals.filter((a) => a.type === 'error').map((a) => a.error ?? ''))];
  const suspicionsRuledOut = marks.filter((m) => m.kind === 'speech_ruled_out').length;
  return { turns, bargeIns, suspicionsRuledOut, errors };
}

function readTurn(
  s: SpokenTurn,
  audible: Arrival | null,
  arrivals: Arrival[],
  marks: TapMark[],
  fakes: Fakes | null,
  startedAt: Map<string | undefined, number>,
): VoiceTurn {
  const within = (a: { at: number }) => a.at >= s.speechSentAt;
  const after = (type: string) => arrivals.find((a) => a.type === type && a.at >= s.speechEndAt && (a.done ?? true));
  const ms = (a: { at: number } | undefined) => (a ? Math.round(a.at - s.speechEndAt) : null);
  const stopped = arrivals.find((a) => a.type === 'turn.speech_stopped' && within(a));
  const early = [...startedAt.values()].filter((at) => at >= s.speechSentAt && at < s.speechEndAt).length;
  const base = {
    id: s.turn.id,
    client: {
      finalMs: ms(after('session.input_transcript.delta')),
      endOfTurnEventMs: ms(after('turn.end_of_turn')),
      responseStartedMs: ms(after('turn.response_started')),
    },
    speechStoppedErrorMs: stopped?.endMs === undefined ? null : Math.round(stopped.endMs - s.speechEndInputMs),
    earlyAnswers: early,
    prepared: marks.some((m) => m.kind === 'prepare' && within(m) && m.at < (audible?.at ?? Infinity)),
  };
  if (!audible) return { ...base, voiceToVoiceMs: null, parts: null, cascade: null };

  const item = audible.itemId;
  const started = marks.find((m) => m.kind === 'response_started' && m.itemId === item);
  const firstChunk = marks.find((m) => m.kind === 'output_audio' && m.itemId === item);
  const first = arrivals.find((a) => a.type === OUT && a.itemId === item);
  const final = lastBefore(marks, 'input_transcript', started?.at ?? audible.at);
  const end =
    lastBefore(marks, 'commit', final?.at ?? audible.at, s.speechSentAt) ??
    lastBefore(marks, 'speech_stopped', final?.at ?? audible.at, s.speechSentAt);
  const total = audible.at - s.speechEndAt;
  const parts =
    started && firstChunk && first && final && end
      ? {
          endOfTurn: tenth(end.at - s.speechEndAt),
          recognitionFinal: tenth(final.at - end.at),
          answer: tenth(started.at - final.at),
          synthesis: tenth(firstChunk.at - started.at),
          transport: tenth(first.at - firstChunk.at),
          leadIn: tenth(audible.at - first.at),
        }
      : null;
  const cascade =
    fakes && parts && final && firstChunk ? cascadeParts(fakes, final.at, firstChunk.at, total, parts) : null;
  return { ...base, voiceToVoiceMs: Math.round(total), parts, cascade };
}

function cascadeParts(
  fakes: Fakes,
  finalAt: number,
  soundAt: number,
  total: number,
  parts: { endOfTurn: number },
): CascadeParts | null {
  const chat = fakes.chat.find((r) => r.receivedAt >= finalAt && r.receivedAt <= soundAt);
  const speech = chat && fakes.speech.find((r) => r.receivedAt >= chat.receivedAt && r.receivedAt <= soundAt);
  if (!chat || !speech || chat.lastWriteAt === null || speech.firstWriteAt === null) return null;
  // The chat fake's time ends where the cascade has asked for speech, if it did before the fake finished.
  const chatDone = Math.min(chat.lastWriteAt, speech.receivedAt);
  const chatFake = chatDone - chat.receivedAt;
  const speechFake = speech.firstWriteAt - speech.receivedAt;
  return {
    toChat: tenth(chat.receivedAt - finalAt),
    chatFake: tenth(chatFake),
    toSpeech: tenth(speech.receivedAt - chatDone),
    speechFake: tenth(speechFake),
    toAudio: tenth(soundAt - speech.firstWriteAt),
    gatewayShare: tenth(total - parts.endOfTurn - chatFake - speechFake),
  };
}

function readBargeIn(s: SpokenTurn, answer: string, arrivals: Arrival[], marks: TapMark[]): BargeIn | null {
  const done = arrivals.find((a) => a.type === 'turn.response_done' && a.itemId === answer);
  // An answer that had finished before the user spoke again was not barged in on.
  if (!done || done.at < s.speechSentAt || !done.interrupted) return null;
  const frames = arrivals.filter((a) => a.type === OUT && a.itemId === answer);
  const last = frames.at(-1);
  if (!last) return null;
  const onset = marks.find((m) => m.kind === 'speech_started' && m.at >= s.speechSentAt);
  const suspected = marks.find((m) => m.kind === 'speech_suspected' && m.at >= s.speechSentAt);
  // The session's clock: an answer's first frame goes out at its start_ms (the pacer starts it now).
  const origin = frames[0].at - (frames[0].startMs ?? 0);
  return {
    id: s.turn.id,
    latencyMs: tenth(Math.max(0, last.at - s.speechSentAt)),
    suspectedMs: suspected && (!onset || suspected.at <= onset.at) ? tenth(suspected.at - s.speechSentAt) : null,
    onsetMs: onset ? tenth(onset.at - s.speechSentAt) : null,
    heldMs: last.endMs === undefined ? null : tenth(last.endMs - (last.at - origin)),
    framesAfterDone: frames.filter((f) => f.at > done.at).length,
  };
}

function lastBefore(marks: TapMark[], kind: string, before: number, notBefore = -Infinity): TapMark | undefined {
  return marks.filter((m) => m.kind === kind && m.at <= before && m.at >= notBefore).at(-1);
}

function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}
