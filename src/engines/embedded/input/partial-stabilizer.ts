/**
 * Decides which words of pocketsphinx's partial hypotheses are safe to send as deltas.
 *
 * Deltas are append-only (the engine interface has no way to take text back), but the last word of
 * a partial hypothesis changes often ("the coup" → "the quicker" → "the quick brown"). So a word is
 * sent once the hypothesis up to and including it has stayed the same for `stableMs` of audio, or
 * for the shorter `settledMs` once another word follows it: the decoder rewrites mostly the word it
 * is still in. Measured over 151 utterances (stable 160 / settled 64 against 128 for every word):
 * first words 36 ms sooner at p50 and 165 ms at p95, for 1 point more revised words.
 * Words are matched by position: if pocketsphinx later revises a word already sent, the following
 * words still continue from the sent count, and the utterance's final `transcript` (from the
 * decoder's best path) is authoritative. Time is audio time, so the result does not depend on how
 * fast audio is fed.
 */
export interface TimedWord {
  word: string;
  startMs: number;
  endMs: number;
  /** Posterior probability; partial hypotheses report 1. */
  confidence: number;
}

export class PartialStabilizer {
  private previous: string[] = [];
  /** since[i]: audio time from which words[0..i] have been unchanged. */
  private since: number[] = [];
  private sent = 0;

  constructor(
    private readonly stableMs: number,
    private readonly settledMs = stableMs,
  ) {}

  /** The latest hypothesis of the utterance, unstable words included. */
  get latest(): readonly string[] {
    return this.previous;
  }

  /** Number of words already sent for this utterance. */
  get sentCount(): number {
    return this.sent;
  }

  /** Takes the hypothesis after `audioMs` of audio; returns the words that became stable. */
  update(words: TimedWord[], audioMs: number): TimedWord[] {
    let common = 0;
    while (common < words.length && common < this.previous.length && words[common].word === this.previous[common]) {
      common++;
    }
    this.since = this.since.slice(0, common);
    for (let i = common; i < words.length; i++) this.since.push(audioMs);
    this.previous = words.map((w) => w.word);

    let stable = 0;
    while (stable < words.length) {
      const needed = stable + 1 < words.length ? this.settledMs : this.stableMs;
      if (audioMs - this.since[stable] < needed) break;
      stable++;
    }
    if (stable <= this.sent) return [];
    const fresh = words.slice(this.sent, stable);
    this.sent = stable;
    return fresh;
  }

  /** Takes the utterance's final words; returns those beyond the ones already sent. */
  finish(words: TimedWord[]): TimedWord[] {
    const rest = words.slice(this.sent);
    this.sent = Math.max(this.sent, words.length);
    return rest;
  }
}
