/**
 * Deepgram's word list for a result, built from the engine's transcript events. Interim results
 * carry the whole hypothesis of the utterance so far (Deepgram shows the span, not a delta), so the
 * deltas are gathered per item; a delta's words share its time span evenly. Final results use
 * the engine's own word timings when it gives them. `punctuate` puts the utterance in sentence
 * case with a full stop when it is final, the way Deepgram's punctuated_word reads.
 */
import type { EngineWord } from '../../../../session-core';

export interface DeepgramWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
  punctuated_word?: string;
}

export interface TimedWord {
  readonly word: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly confidence?: number;
}

/** The words of one delta, spread over its span. */
export function spreadWords(text: string, startMs: number, endMs: number): TimedWord[] {
  const words = text.split(/\s+/).filter((word) => word !== '');
  const step = words.length === 0 ? 0 : Math.max(0, endMs - startMs) / words.length;
  return words.map((word, i) => ({ word, startMs: startMs + i * step, endMs: startMs + (i + 1) * step }));
}

export function fromEngineWords(words: readonly EngineWord[]): TimedWord[] {
  return words.map((w) => ({ word: w.word, startMs: w.startMs, endMs: w.endMs, confidence: w.confidence }));
}

/** Deepgram words (seconds, 3 decimals) and the transcript they read as. */
export function deepgramWords(
  words: readonly TimedWord[],
  options: { readonly punctuate: boolean; readonly final: boolean; readonly confidence: number },
): { words: DeepgramWord[]; transcript: string } {
  const out = words.map((w, i): DeepgramWord => {
    const word: DeepgramWord = {
      word: w.word.toLowerCase().replace(/[.,!?;:]+$/, ''),
      start: seconds(w.startMs),
      end: seconds(Math.max(w.startMs, w.endMs)),
      confidence: w.confidence ?? options.confidence,
    };
    if (options.punctuate) word.punctuated_word = punctuated(w.word, i === 0, options.final && i === words.length - 1);
    return word;
  });
  const transcript = out.map((w) => w.punctuated_word ?? w.word).join(' ');
  return { words: out, transcript };
}

export function seconds(ms: number): number {
  return Math.round(Math.max(0, ms)) / 1000;
}

function punctuated(word: string, first: boolean, last: boolean): string {
  let text = word === 'i' || word.startsWith("i'") ? `I${word.slice(1)}` : word;
  if (first) text = text.charAt(0).toUpperCase() + text.slice(1);
  if (last && !/[.!?]$/.test(text)) text += '.';
  return text;
}
