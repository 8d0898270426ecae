/**
 * Word timings for synthesised speech. flite reports the end time of every phone (`-psdur`) but
 * not which word a phone belongs to, so each word gets a share of the spoken phones proportional
 * to an estimate of its phone count from its spelling, in order, and its boundaries snap to real
 * phone boundaries (pauses excluded). This is an approximation: a boundary can be off by a phone or
 * two (tens of ms), never by a word, and it cannot drift past the sentence's real start and end.
 */
export interface PhoneSegment {
  phone: string;
  startMs: number;
  endMs: number;
}

export interface SpokenWord {
  /** The word as written in the reply, punctuation included, so words join back into the text. */
  text: string;
  startMs: number;
  endMs: number;
}

/**
 * The phones of the addon's segments (libs/flite), each ending where flite says, rounded to whole ms
 * as the CLI's `-psdur` line was, so a word's timing does not depend on which of the two spoke.
 */
export function phonesFromSegments(segments: ReadonlyArray<{ name: string; endSeconds: number }>): PhoneSegment[] {
  let previousEnd = 0;
  return segments.map((segment) => {
    const endMs = Math.round(segment.endSeconds * 1000);
    const phone = { phone: segment.name, startMs: previousEnd, endMs };
    previousEnd = endMs;
    return phone;
  });
}

/** Rough phone count from spelling: digraphs, vowel teams and doubled letters are one sound. */
export function estimatePhoneCount(word: string): number {
  const letters = word.toLowerCase().replace(/[^a-z]/g, '');
  if (letters === '') return 0;
  const collapsed = letters
    .replace(/(th|sh|ch|ph|wh|ng|ck|gh|qu)/g, '1')
    .replace(/(ee|oo|ea|ai|ay|oa|ou|ow|oi|oy|ie|ei|ey|au|aw|ue|ui)/g, '2')
    .replace(/([b-df-hj-np-tv-z])\1/g, '$1');
  const silentE = collapsed.length > 2 && /[^aeiou12]e$/.test(collapsed) ? 1 : 0;
  return Math.max(1, collapsed.length - silentE);
}

export function alignWords(text: string, phones: PhoneSegment[]): SpokenWord[] {
  const tokens: Array<{ text: string; weight: number }> = [];
  for (const raw of text.split(/\s+/).filter(Boolean)) {
    const weight = estimatePhoneCount(raw);
    // A token with no letters ("-", "&") is folded into the previous word rather than timed.
    if (weight === 0 && tokens.length > 0) tokens[tokens.length - 1].text += ` ${raw}`;
    else tokens.push({ text: raw, weight });
  }
  const spoken = phones.filter((p) => p.phone !== 'pau');
  if (tokens.length === 0) return [];
  if (spoken.length === 0) {
    const end = phones.length > 0 ? phones[phones.length - 1].endMs : 0;
    return tokens.map((t) => ({ text: t.text, startMs: 0, endMs: end }));
  }
  const total = tokens.reduce((sum, t) => sum + Math.max(t.weight, 1), 0);
  const words: SpokenWord[] = [];
  let before = 0;
  for (const token of tokens) {
    const after = before + Math.max(token.weight, 1);
    const first = Math.min(spoken.length - 1, Math.round((before / total) * spoken.length));
    const last = Math.max(first, Math.min(spoken.length, Math.round((after / total) * spoken.length)) - 1);
    words.push({ text: token.text, startMs: spoken[first].startMs, endMs: spoken[last].endMs });
    before = after;
  }
  return words;
}
