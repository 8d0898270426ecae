import { describe, expect, it } from '@jest/globals';

import { dateWords, HELP_REPLY, NOT_HEARD_REPLY, numberWords, ordinalWords, personaReply, timeWords } from './persona';

// Local time: the persona speaks the server's clock.
const at = (h: number, m: number): Date => new Date(2025, 10, 21, h, m);

describe('persona', () => {
  it('answers the time in words', () => {
    expect(personaReply('what time is it', at(15, 27))).toBe('It is three twenty seven in the afternoon.');
    expect(timeWords(at(0, 0))).toBe("twelve o'clock at night");
    expect(timeWords(at(9, 5))).toBe('nine oh five in the morning');
    expect(timeWords(at(11, 45))).toBe('quarter to twelve in the afternoon');
    expect(timeWords(at(19, 30))).toBe('half past seven in the evening');
  });

  it('answers the date', () => {
    expect(personaReply('what is the date today', at(10, 0))).toBe('Today is Friday, November the twenty first.');
    expect(dateWords(new Date(2024, 1, 29))).toBe('Thursday, February the twenty ninth');
    expect(ordinalWords(30)).toBe('thirtieth');
    expect(numberWords(40)).toBe('forty');
  });

  it('greets, helps, and greets before an answer', () => {
    expect(personaReply('hello', at(8, 0))).toMatch(/^Hello! I am Aria/);
    expect(personaReply('help me', at(8, 0))).toBe(HELP_REPLY);
    expect(personaReply('good morning what time is it', at(8, 0))).toBe("Hello! It is eight o'clock in the morning.");
  });

  it('echoes anything else and admits when it heard nothing', () => {
    expect(personaReply('the quick brown fox', at(8, 0))).toBe('I heard: the quick brown fox.');
    expect(personaReply('  ', at(8, 0))).toBe(NOT_HEARD_REPLY);
    const long = Array.from({ length: 40 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}`).join(' ');
    expect(personaReply(long, at(8, 0)).split(' ')).toHaveLength(2 + 25 + 3); // "I heard:", 25 words, "and so on."
  });

  it('does not take a word inside another word for an intent', () => {
    expect(personaReply('sometimes things change', at(8, 0))).toBe('I heard: sometimes things change.');
    expect(personaReply('this is a update', at(8, 0))).toBe('I heard: this is a update.');
  });
});
