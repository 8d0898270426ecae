import { SentenceSplitter, speakable } from './sentence-splitter';

/** Feeds `text` in pieces of `size` characters, as a model streams it. */
function split(text: string, size: number, maxChars?: number): string[] {
  const splitter = new SentenceSplitter(maxChars);
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(...splitter.push(text.slice(at, at + size)));
  return [...out, ...splitter.end()];
}

describe('SentenceSplitter', () => {
  it('cuts at sentence ends however the text is streamed', () => {
    const text = 'Hello there! It is ten past three. Is that "late?" No… not really.';
    const expected = ['Hello there!', 'It is ten past three.', 'Is that "late?"', 'No…', 'not really.'];
    for (const size of [1, 2, 5, 100]) expect(split(text, size)).toEqual(expected);
  });

  it('gives a sentence out as soon as the whitespace after it arrives', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('It is late.')).toEqual([]);
    expect(splitter.push(' Go')).toEqual(['It is late.']);
    expect(splitter.end()).toEqual(['Go']);
  });

  it('does not cut after abbreviations, initials, list numbers or decimals', () => {
    expect(split('Dr. Smith met J. Doe at 3.5 km, e.g. near St. Paul. Then I left.', 3)).toEqual([
      'Dr. Smith met J. Doe at 3.5 km, e.g. near St. Paul.',
      'Then I left.',
    ]);
    expect(split('Steps:\n1. Open it.\n2. Close it.', 4)).toEqual(['Steps:', 'Open it.', 'Close it.']);
  });

  it('cuts a run-on at its last comma, else its last space, past maxChars', () => {
    const out = split('one two three, four five six seven eight nine ten eleven twelve', 4, 30);
    expect(out[0]).toBe('one two three,');
    expect(out.every((s) => s.length <= 30)).toBe(true);
    expect(out.join(' ')).toBe('one two three, four five six seven eight nine ten eleven twelve');
  });

  it('strips Markdown a voice should not read', () => {
    expect(speakable('**Sure!** Here is `code` and # a title')).toBe('Sure! Here is code and a title');
    expect(split('- first item.\n- second item', 3)).toEqual(['first item.', 'second item']);
  });
});
