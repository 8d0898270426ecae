/**
 * Per-utterance latencies of a stream fed at real-time pace, against the speech's true position in
 * the fed audio (see speech-timing.ts). Audio time t was "spoken" at wall time t0 + t.
 */
import { EventLog } from './stream-driver';
import { normalizeWords, wordEdits } from './wer';

export interface UtteranceLatency {
  /** First non-empty transcript delta after the speech began. */
  firstPartialMs: number | null;
  /** Final transcript after the speech really ended (includes the turn's silence duration). */
  finalAfterSpeechEndMs: number | null;
  /** Final transcript after the engine's speech_stopped (the recogniser's own finishing time). */
  finalAfterEndpointMs: number | null;
}

export function utteranceLatencies(
  log: EventLog,
  t0: number,
  speech: Array<{ startMs: number; endMs: number }>,
): UtteranceLatency[] {
  const finals = log.timed('input_transcript').filter((e) => e.event.done);
  return speech.map((span) => {
    const final = finals.find((f) => f.event.endMs >= span.startMs && f.event.startMs <= span.endMs);
    if (!final) return { firstPartialMs: null, finalAfterSpeechEndMs: null, finalAfterEndpointMs: null };
    const itemId = final.event.itemId;
    const firstDelta = log
      .timed('input_transcript')
      .find((e) => e.event.itemId === itemId && e.event.delta.trim() !== '');
    const stopped = log.timed('speech_stopped').find((e) => e.event.itemId === itemId);
    return {
      firstPartialMs: firstDelta ? firstDelta.at - (t0 + span.startMs) : null,
      finalAfterSpeechEndMs: final.at - (t0 + span.endMs),
      finalAfterEndpointMs: stopped ? final.at - stopped.at : null,
    };
  });
}

/**
 * How far the partial text a client saw strays from the final transcripts: word edits between the
 * concatenated deltas and the finals, over the finals' words (0 = partials never revised).
 */
export function partialRevisionRate(log: EventLog): number {
  let edits = 0;
  let words = 0;
  for (const final of log.finals()) {
    const shown = log
      .of('input_transcript')
      .filter((e) => e.itemId === final.itemId)
      .map((e) => e.delta)
      .join('');
    const finalWords = normalizeWords(final.transcript ?? '');
    edits += wordEdits(finalWords, normalizeWords(shown));
    words += finalWords.length;
  }
  return words === 0 ? 0 : edits / words;
}
