/**
 * The fixed persona of `vendor-voicechat` ("Aria") in the embedded engine: no language model, just
 * a few intents matched on what the recogniser heard, and an echo of anything else. Replies are
 * written out in words (no digits) so the synthesiser reads them naturally and their transcript
 * matches what is spoken.
 */
const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty'];
const ORDINAL_ONES = [
  '',
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export const HELP_REPLY =
  'You can ask me the time or the date, say hello, or say anything and I will repeat what I heard.';
export const NOT_HEARD_REPLY = 'Sorry, I did not catch that. Could you say it again?';
/** An echo longer than this is cut short: a reply should not outlast the question by much. */
const ECHO_WORDS = 25;

/** 0..59 in words. */
export function numberWords(n: number): string {
  if (n < 20) return ONES[n];
  const tens = TENS[Math.floor(n / 10)];
  return n % 10 === 0 ? tens : `${tens} ${ONES[n % 10]}`;
}

/** 1..31 as an ordinal: "twenty first". */
export function ordinalWords(n: number): string {
  if (n < 20) return ORDINAL_ONES[n];
  if (n % 10 === 0) return `${TENS[n / 10].slice(0, -1)}ieth`;
  return `${TENS[Math.floor(n / 10)]} ${ORDINAL_ONES[n % 10]}`;
}

/** "quarter past three in the afternoon". */
export function timeWords(now: Date): string {
  const hours = now.getHours();
  const minutes = now.getMinutes();
  const hour12 = (h: number): string => numberWords(h % 12 === 0 ? 12 : h % 12);
  let clock: string;
  if (minutes === 0) clock = `${hour12(hours)} o'clock`;
  else if (minutes === 15) clock = `quarter past ${hour12(hours)}`;
  else if (minutes === 30) clock = `half past ${hour12(hours)}`;
  else if (minutes === 45) clock = `quarter to ${hour12(hours + 1)}`;
  else if (minutes < 10) clock = `${hour12(hours)} oh ${numberWords(minutes)}`;
  else clock = `${hour12(hours)} ${numberWords(minutes)}`;
  const shown = minutes === 45 ? (hours + 1) % 24 : hours;
  const period =
    shown < 5 || shown >= 22
      ? 'at night'
      : shown < 12
        ? 'in the morning'
        : shown < 18
          ? 'in the afternoon'
          : 'in the evening';
  return `${clock} ${period}`;
}

/** "Tuesday, November the twenty first". */
export function dateWords(now: Date): string {
  return `${WEEKDAYS[now.getDay()]}, ${MONTHS[now.getMonth()]} the ${ordinalWords(now.getDate())}`;
}

interface Intent {
  matches(text: string): boolean;
  reply(now: Date, heard: string): string;
}

const has = (text: string, ...phrases: string[]): boolean => phrases.some((p) => ` ${text} `.includes(` ${p} `));

const INTENTS: Intent[] = [
  { matches: (t) => has(t, 'time', 'clock'), reply: (now) => `It is ${timeWords(now)}.` },
  {
    matches: (t) => has(t, 'date', 'what day', 'which day', 'day is it', 'day today'),
    reply: (now) => `Today is ${dateWords(now)}.`,
  },
  { matches: (t) => has(t, 'help', 'what can you do', 'how does this work'), reply: () => HELP_REPLY },
  {
    matches: (t) => has(t, 'your name', 'who are you'),
    reply: () => 'I am Aria, the voice of the embedded Continuum engine.',
  },
  { matches: (t) => has(t, 'thank you', 'thanks'), reply: () => 'You are welcome.' },
  { matches: (t) => has(t, 'goodbye', 'bye', 'see you'), reply: () => 'Goodbye. Talk to you soon.' },
];

const GREETINGS = ['hello', 'hi', 'hey', 'good morning', 'good afternoon', 'good evening'];

/** The persona's answer to one finished user turn. */
export function personaReply(heard: string, now: Date): string {
  const text = heard
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return NOT_HEARD_REPLY;
  const greeted = has(text, ...GREETINGS);
  const intent = INTENTS.find((candidate) => candidate.matches(text));
  if (intent) return greeted ? `Hello! ${intent.reply(now, text)}` : intent.reply(now, text);
  if (greeted) return 'Hello! I am Aria. Ask me the time or the date, or say anything and I will repeat it.';
  const words = text.split(' ');
  return words.length > ECHO_WORDS
    ? `I heard: ${words.slice(0, ECHO_WORDS).join(' ')}, and so on.`
    : `I heard: ${text}.`;
}
