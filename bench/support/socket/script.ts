/**
 * The conversation every benchmark session has, and where the scripted engine (and the relay,
 * which mimics it) must answer. Each user turn is 480 ms of tone then silence; the engine ends a
 * turn after 500 ms of silence, so the 7th silence frame ends it and, in the same call chain,
 * the reply's first audio frame goes out. Three frames per turn therefore cause an immediate,
 * deterministic server event; the time from sending one of them to receiving its event is the
 * latency a frame picks up crossing the server.
 */
import { DEFAULT_VAD, FRAME_BYTES, FRAME_MS } from '../../../src/session-core';
import { DEFAULT_SCRIPTED_OPTIONS } from '../../../src/engines/scripted/scripted.options';

export { FRAME_BYTES, FRAME_MS };

/** The events the benchmark times, each caused by one known input frame. */
export type Probe = 'speech_started' | 'input_word' | 'first_output';
export const PROBES: readonly Probe[] = ['speech_started', 'input_word', 'first_output'];

export const SPEECH_FRAMES = 6;
/** The silence frame (1-based) that reaches the turn detector's silence duration. */
export const END_SILENCE_FRAMES = Math.ceil(DEFAULT_VAD.silenceDurationMs / FRAME_MS);
export const REPLY_FRAMES = Math.ceil(DEFAULT_SCRIPTED_OPTIONS.reply.durationMs / FRAME_MS);
/**
 * Silence after the turn ends, until the next turn: the reply (960 ms) has played out and its
 * response_done gone before the user speaks again, with two frames to spare, so no turn is a
 * barge-in even when output runs a little late.
 */
export const TAIL_SILENCE_FRAMES = REPLY_FRAMES + 2;
export const CYCLE_FRAMES = SPEECH_FRAMES + END_SILENCE_FRAMES + TAIL_SILENCE_FRAMES;
const WORD_FRAME = Math.ceil(DEFAULT_SCRIPTED_OPTIONS.wordEveryMs / FRAME_MS) - 1;
const END_FRAME = SPEECH_FRAMES + END_SILENCE_FRAMES - 1;

/** Frame `index` of a session that stays silent for `lead` frames first (so sessions are out of step). */
export function isSpeech(index: number, lead: number): boolean {
  const at = index - lead;
  return at >= 0 && at % CYCLE_FRAMES < SPEECH_FRAMES;
}

/** The event frame `index` causes at once, if any. */
export function probeOf(index: number, lead: number): Probe | null {
  const at = index - lead;
  if (at < 0) return null;
  const position = at % CYCLE_FRAMES;
  if (position === 0) return 'speech_started';
  if (position === WORD_FRAME) return 'input_word';
  if (position === END_FRAME) return 'first_output';
  return null;
}

/**
 * When output frame `n` of a reply is due after the first: the pacer sends a frame `leadMs`
 * (one frame) ahead of its play time, so the first two leave together and then one per frame.
 */
export function outputDueMs(n: number): number {
  return Math.max(0, n - 1) * FRAME_MS;
}
