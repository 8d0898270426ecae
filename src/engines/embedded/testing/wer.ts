/** Word error rate, as the accuracy specs and the benchmark compute it. */

/** Lower case, no punctuation or sentence markers: "<s> Mister John's </s>" → ["mister", "john's"]. */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/<\/?s>/g, ' ')
    .replace(/[^a-z' ]+/g, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter(Boolean);
}

/** Minimum substitutions + insertions + deletions turning `hypothesis` into `reference`. */
export function wordEdits(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const current = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution = previous[j - 1] + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[hypothesis.length];
}

export interface WerResult {
  wer: number;
  edits: number;
  words: number;
}

/** Corpus-level WER: total edits over total reference words. */
export function corpusWer(pairs: Array<{ reference: string; hypothesis: string }>): WerResult {
  let edits = 0;
  let words = 0;
  for (const { reference, hypothesis } of pairs) {
    const ref = normalizeWords(reference);
    edits += wordEdits(ref, normalizeWords(hypothesis));
    words += ref.length;
  }
  return { wer: words === 0 ? 0 : edits / words, edits, words };
}
