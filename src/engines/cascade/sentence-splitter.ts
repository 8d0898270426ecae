/**
 * Cuts streamed answer text into sentences as it arrives, so each can be synthesised while the
 * model is still writing the next. A sentence ends at `.`, `!`, `?` or `…` (closing quotes and
 * brackets included) once whitespace follows, or at a line break; not after a common abbreviation,
 * an initial or a list number. A run-on longer than `maxChars` is cut at its last comma, or space,
 * so one sentence never holds the voice back for long.
 */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'jr',
  'sr',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'no',
  'approx',
]);

const END = /[.!?…]+["'”’)\]]*(?=\s)|\n+/g;

export class SentenceSplitter {
  private text = '';

  constructor(private readonly maxChars = 240) {}

  /** Adds streamed text; returns the sentences it completed, ready to speak. */
  push(delta: string): string[] {
    this.text += delta;
    const out: string[] = [];
    let from = 0;
    END.lastIndex = 0;
    for (let match = END.exec(this.text); match; match = END.exec(this.text)) {
      const end = match.index + match[0].length;
      if (match[0][0] === '.' && !endsSentence(this.text.slice(from, match.index))) continue;
      this.emit(this.text.slice(from, end), out);
      from = end;
    }
    this.text = this.text.slice(from);
    while (this.text.length > this.maxChars) {
      const window = this.text.slice(0, this.maxChars);
      const cut = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; ')) + 1 || window.lastIndexOf(' ');
      const at = cut > 0 ? cut : this.maxChars;
      this.emit(this.text.slice(0, at), out);
      this.text = this.text.slice(at);
    }
    return out;
  }

  /** The answer is complete: whatever is left is the last sentence. */
  end(): string[] {
    const out: string[] = [];
    this.emit(this.text, out);
    this.text = '';
    return out;
  }

  private emit(raw: string, out: string[]): void {
    const sentence = speakable(raw);
    if (sentence !== '') out.push(sentence);
  }
}

/** Whether a full stop after `before` ends a sentence (not "Dr.", "J." or "1."). */
function endsSentence(before: string): boolean {
  const word = /(\S+)$/.exec(before)?.[1]?.toLowerCase();
  if (word === undefined) return false;
  if (/^\d+$/.test(word) && /(^|\n)\s*\d+$/.test(before)) return false;
  // A lone letter is an initial ("J. Smith"), except the pronoun.
  return !ABBREVIATIONS.has(word) && !/^[a-hj-z]$/.test(word);
}

/**
 * What a voice should read: chat models write Markdown, and `**`, `#` or a list dash read aloud
 * are noise. The same text is the output transcript, so transcript and speech agree.
 */
export function speakable(text: string): string {
  return text
    .replace(/[*_`#~]+/g, '')
    .replace(/^\s*(?:[-•]|\d+[.)])\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}
