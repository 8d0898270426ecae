/**
 * A labelled set of user turns for end-of-turn detection, spoken by flite voices at run time:
 * complete statements and questions, and sentences with a mid-sentence pause of 200–600 ms at a
 * point where the sentence is plainly unfinished (after an article, a preposition, a conjunction:
 * where people hesitate). Each turn's audio is its parts, trimmed to their speech, joined by the
 * pause; the label is where the speech really ends (the last voiced sample) and where the pauses are.
 */
import { concatAudio, silence, toSessionAudio } from './speech-fixtures';
import { speechSpan } from './speech-timing';
import { FliteSynthesizer } from '../output/flite-synthesizer';

export type TurnKind = 'statement' | 'question' | 'command' | 'name_number' | 'paused' | 'trailing_conjunction';

export interface TurnSpec {
  kind: TurnKind;
  /** Spoken one after another; a pause separates consecutive parts. */
  parts: string[];
}

export interface LabelledTurn {
  id: string;
  kind: TurnKind;
  voice: string;
  text: string;
  pauseMs: number;
  /** pcm16 24 kHz: lead silence, the turn, trailing silence. */
  pcm: Int16Array;
  /** Where the first voiced sample is, in ms of `pcm`. */
  speechStartMs: number;
  /** Where the last voiced sample is, in ms of `pcm`. */
  speechEndMs: number;
  /** Mid-turn pauses, in ms of `pcm` (a turn that ends inside one was ended too early). */
  pauses: Array<{ startMs: number; endMs: number }>;
}

export const TURN_SPECS: TurnSpec[] = [
  { kind: 'statement', parts: ['turn off the lights in the kitchen'] },
  { kind: 'statement', parts: ['my favorite color is blue'] },
  { kind: 'statement', parts: ['the train leaves at half past seven'] },
  { kind: 'statement', parts: ['she reads a newspaper every morning'] },
  { kind: 'question', parts: ['what time is it right now'] },
  { kind: 'question', parts: ['how much does this book cost'] },
  { kind: 'question', parts: ['can you tell me the way to the station'] },
  { kind: 'question', parts: ['what is the date today'] },
  { kind: 'paused', parts: ['please schedule a meeting for', 'tomorrow morning'] },
  { kind: 'paused', parts: ['can you tell me the', 'way to the station'] },
  { kind: 'paused', parts: ['we are going to the', 'beach next weekend'] },
  { kind: 'paused', parts: ['lock the front door before', 'you leave'] },
  { kind: 'trailing_conjunction', parts: ['i need to buy some milk and', 'some bread'] },
  { kind: 'trailing_conjunction', parts: ['he bought three apples but', 'no oranges'] },
  { kind: 'trailing_conjunction', parts: ['we can go to the park or', 'stay at home'] },
  { kind: 'trailing_conjunction', parts: ['i was tired so', 'i went to bed early'] },
];

export const TURN_PAUSES_MS = [200, 400, 600];
export const TURN_VOICES = ['awb', 'rms'];
const LEAD_MS = 300;

/**
 * Every spec once per voice; paused specs once per pause length. `trailMs` of silence follows the
 * speech (enough for any end of turn but the timeout).
 */
export async function buildTurnSet(
  options: { voices?: string[]; pausesMs?: number[]; trailMs?: number; specs?: TurnSpec[] } = {},
): Promise<LabelledTurn[]> {
  const voices = options.voices ?? TURN_VOICES;
  const pauses = options.pausesMs ?? TURN_PAUSES_MS;
  const trailMs = options.trailMs ?? 1500;
  const turns: LabelledTurn[] = [];
  for (const [v, voice] of voices.entries()) {
    const flite = new FliteSynthesizer({ voice, sampleRate: null });
    for (const [i, spec] of (options.specs ?? TURN_SPECS).entries()) {
      const parts: Int16Array[] = [];
      for (const text of spec.parts) {
        const speech = await flite.synthesize(text);
        const audio = toSessionAudio({ sampleRate: speech.sampleRate, samples: speech.pcm });
        const span = speechSpan(audio);
        parts.push(audio.subarray(span.startMs * 24, span.endMs * 24));
      }
      // Each voice hears every pause length of a paused spec, rotated so the set stays small.
      const lengths = spec.parts.length === 1 ? [0] : [pauses[(i + v) % pauses.length]];
      for (const pauseMs of lengths)
        turns.push(assemble(`${voice}-${i}-${pauseMs}`, voice, spec, parts, pauseMs, trailMs));
    }
  }
  return turns;
}

function assemble(
  id: string,
  voice: string,
  spec: TurnSpec,
  parts: Int16Array[],
  pauseMs: number,
  trailMs: number,
): LabelledTurn {
  const audio: Int16Array[] = [silence(LEAD_MS)];
  const pauses: Array<{ startMs: number; endMs: number }> = [];
  let ms = LEAD_MS;
  for (const [k, part] of parts.entries()) {
    if (k > 0) {
      audio.push(silence(pauseMs));
      pauses.push({ startMs: ms, endMs: ms + pauseMs });
      ms += pauseMs;
    }
    audio.push(part);
    ms += part.length / 24;
  }
  audio.push(silence(trailMs));
  return {
    id,
    kind: spec.kind,
    voice,
    text: spec.parts.join(' '),
    pauseMs,
    pcm: concatAudio(audio),
    speechStartMs: LEAD_MS,
    speechEndMs: ms,
    pauses,
  };
}
