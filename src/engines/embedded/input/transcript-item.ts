/**
 * One user item (a turn, or the audio between two commits) and the transcript events it produces.
 * An item holds one or more recogniser segments (utterances split at pauses).
 *
 * Every input_transcript event's [startMs, endMs] is the span of the text it carries: a delta's
 * words, or for the final (done) event the whole transcript (the item's audio span when nothing was
 * recognised). Delta spans never go backwards: a delta starts no earlier than the previous one ended.
 */
import { EngineEvent, EngineWord } from '../../../session-core';
import { TimedWord } from './partial-stabilizer';

type InputTranscriptEvent = Extract<EngineEvent, { type: 'input_transcript' }>;

export class TranscriptItem {
  private readonly finalWords: TimedWord[] = [];
  private sentText = false;
  private lastEndMs: number;

  constructor(
    readonly id: string,
    /** Start of the item's audio (speech onset minus prefix padding). */
    readonly audioStartMs: number,
  ) {
    this.lastEndMs = audioStartMs;
  }

  /** A partial delta for words that became stable, or null when there are none. */
  delta(words: TimedWord[]): InputTranscriptEvent | null {
    if (words.length === 0) return null;
    const startMs = Math.max(words[0].startMs, this.lastEndMs);
    const endMs = Math.max(words[words.length - 1].endMs, startMs);
    this.lastEndMs = endMs;
    return {
      type: 'input_transcript',
      itemId: this.id,
      delta: this.join(words),
      startMs,
      endMs,
      done: false,
    };
  }

  /** Records a finished segment's words (they make up the final transcript). */
  addFinalWords(words: TimedWord[]): void {
    this.finalWords.push(...words);
  }

  get transcript(): string {
    return this.finalWords.map((w) => w.word).join(' ');
  }

  /**
   * The done event. Its delta is empty: every segment's remaining words were already sent as a
   * delta when the segment closed, so concatenated deltas equal the words of `transcript` unless
   * pocketsphinx's final pass revised a word that had been sent.
   */
  finish(audioEndMs: number): InputTranscriptEvent {
    const words = this.finalWords;
    const startMs = words.length > 0 ? words[0].startMs : this.audioStartMs;
    const endMs = Math.max(startMs, words.length > 0 ? words[words.length - 1].endMs : audioEndMs);
    const engineWords: EngineWord[] = words.map((w) => ({
      word: w.word,
      startMs: w.startMs,
      endMs: w.endMs,
      confidence: round3(w.confidence),
    }));
    const event: InputTranscriptEvent = {
      type: 'input_transcript',
      itemId: this.id,
      delta: '',
      startMs,
      endMs,
      done: true,
      transcript: this.transcript,
      words: engineWords,
    };
    if (words.length > 0) event.confidence = round3(words.reduce((sum, w) => sum + w.confidence, 0) / words.length);
    return event;
  }

  /** Deltas concatenate into text: every delta after the first starts with a space. */
  private join(words: TimedWord[]): string {
    if (words.length === 0) return '';
    const text = words.map((w) => w.word).join(' ');
    const out = this.sentText ? ` ${text}` : text;
    this.sentText = true;
    return out;
  }
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
