/** Input transcript events as the session core emits them, for the dialects' renderer specs. */
import type { ServerEvent } from '../model/session.events';
import type { TranscriptWord } from '../model/transcript';

/** A partial: `text` added to the item, heard over startMs..endMs. */
export function transcriptDelta(itemId: string, text: string, startMs: number, endMs: number): ServerEvent {
  return { type: 'input_transcript', itemId, delta: text, startMs, endMs, done: false };
}

/** The item's final transcript, with what the engine reported of it. */
export function finalTranscript(
  itemId: string,
  transcript: string,
  startMs: number,
  endMs: number,
  reported: { confidence?: number; words?: TranscriptWord[] } = {},
): ServerEvent {
  return { type: 'input_transcript', itemId, delta: '', startMs, endMs, done: true, transcript, ...reported };
}
