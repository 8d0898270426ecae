/**
 * End-of-turn confidence: the probability that the user has finished their turn, from what any
 * engine can tell the session (silence since the last voiced sample, the turn's hypothesis so far
 * and how long it has stayed the same). Pure.
 *
 * A logistic model kept small enough to read: the log-odds are a sum of named terms, each one a
 * reason a person would give ("it has been quiet for 250 ms", "the last word was 'and'"), and
 * `explain` returns them. Silence is the main evidence; the words move the point at which the same
 * silence becomes convincing:
 *
 *   logit(p) = SILENCE_SLOPE * (silenceMs - SILENCE_MIDPOINT_MS)   time since the last voice
 *            + ending(last word)    "and", "the", "um"…: a turn rarely ends there (strongly negative);
 *                                   "to", "I", "is"…: seldom (negative)
 *            + question             a question that has its object ("what time is it"): positive
 *            + no words yet         the recogniser has not caught up: negative
 *            + unstable             a partial hypothesis changed within UNSTABLE_MS of audio: negative
 *            + partial              the words are not yet the recogniser's final ones: negative
 *            + not heard            the recogniser has not yet heard HEARD_PAST_VOICE_MS past the last
 *                                   voice (a busy machine): the last word is unknown, strongly negative
 *
 * Calibrated on the tune part of the calibration set (src/engines/embedded/testing/calibration-set.ts,
 * bench/end-of-turn.bench.ts): the midpoint and slope put a plain statement's end at about 190 ms of
 * silence at the default 0.7 threshold; the continuation term holds a turn that stops on "and", "the",
 * "of" or "is" open past 1.1 s of silence (pauses of up to 800 ms plus the VAD's onset delay). The
 * turn tracker caps the wait of a complete-sounding turn at 350 ms of silence (turn-tracker.ts). How it
 * was calibrated, step by step: docs/end-of-turn.md.
 */
export interface EndOfTurnFeatures {
  /** Silence since the last voiced sample, in ms of audio (0 while the user speaks). */
  silenceMs: number;
  /** The turn's text so far (partial words included), as the recogniser has it. */
  hypothesis: string;
  /** Audio time the hypothesis has stayed unchanged, in ms. */
  stableMs: number;
  /**
   * How much audio after the last voiced sample the recogniser had heard when it formed the
   * hypothesis (negative: it has not even heard the end of the speech); undefined when the engine
   * does not say.
   */
  heardPastVoiceMs?: number;
  /** Whether the hypothesis is the recogniser's final word sequence; undefined when not known. */
  final?: boolean;
}

export interface EndOfTurnTerm {
  name:
    'silence' | 'continuation' | 'weak_continuation' | 'question' | 'no_words' | 'unstable' | 'not_heard' | 'partial';
  logOdds: number;
}

export interface EndOfTurnEstimate {
  /** 0..MAX_CONFIDENCE. */
  probability: number;
  terms: EndOfTurnTerm[];
}

export const SILENCE_MIDPOINT_MS = 120;
export const SILENCE_SLOPE = 0.015;
const CONTINUATION = -14;
const WEAK_CONTINUATION = -3.5;
const QUESTION = 0.8;
const NO_WORDS = -2.5;
const UNSTABLE = -1.5;
const UNSTABLE_MS = 128;
/** The recogniser emits a word only some frames after it ends: until then the last word is unknown. */
const NOT_HEARD = -4;
const HEARD_PAST_VOICE_MS = 96;
/** Partial hypotheses miss short last words ("or", "a") that the final pass finds. */
const PARTIAL = -2.5;
/** A model is never certain: 1.0 stays reserved for "only ForceEndTurn or the timeout end turns". */
export const MAX_CONFIDENCE = 0.999;

/** Words after which a turn almost never ends: conjunctions, articles, fillers, hedges. */
const CONTINUATION_WORDS = new Set(
  (
    'and but or so because though although unless whereas nor yet if then than before after until since whether ' +
    'the a an this that these those my your his her our their its some any every each no ' +
    'um uh er ah hmm erm like ' + // "like": see endingOf
    'of to from with without into onto about for at by in on as ' +
    // A copula or a want with nothing after it ("my name is", "I need"): the object is still to come.
    'is are am was were want wants wanted need needs needed'
  ).split(' '),
);

/** Words before "like" that make it want an object: "I would like…", "it looks like…", "just like…". */
const LIKE_WANTS_MORE_AFTER = new Set(
  (
    "i you we they he she would i'd you'd we'd they'd he'd she'd 'd should could might do does did don't " +
    'look looks looked looking feel feels felt sound sounds seem seems something just more much really also ' +
    'and but or so um uh er'
  ).split(' '),
);

/** Words after which a turn can end but seldom does: subjects, auxiliaries, verbs that want more. */
const WEAK_CONTINUATION_WORDS = new Set(
  (
    'i we they he she ' +
    'be been being do does did have has had will would can could should shall may might must ' +
    'going gonna wanna tell give get make take put let please ' +
    'very really just also more most much many which who whose where when while what how why'
  ).split(' '),
);

/** Openings of a question: an answerable question that has its content is a complete turn. */
const QUESTION_OPENINGS = new Set(
  (
    'what when where who whom whose why how which ' +
    'is are was were am do does did have has had will would can could should shall may might'
  ).split(' '),
);

export function endOfTurnProbability(features: EndOfTurnFeatures): EndOfTurnEstimate {
  const terms = explain(features);
  const logOdds = terms.reduce((sum, term) => sum + term.logOdds, 0);
  return { probability: Math.min(MAX_CONFIDENCE, 1 / (1 + Math.exp(-logOdds))), terms };
}

export function explain(features: EndOfTurnFeatures): EndOfTurnTerm[] {
  const { silenceMs, hypothesis, stableMs, heardPastVoiceMs, final } = features;
  const terms: EndOfTurnTerm[] = [
    { name: 'silence', logOdds: SILENCE_SLOPE * (Math.max(0, silenceMs) - SILENCE_MIDPOINT_MS) },
  ];
  if (heardPastVoiceMs !== undefined && heardPastVoiceMs < HEARD_PAST_VOICE_MS) {
    terms.push({ name: 'not_heard', logOdds: NOT_HEARD });
  }
  if (final === false) terms.push({ name: 'partial', logOdds: PARTIAL });
  const words = wordsOf(hypothesis);
  if (words.length === 0) {
    terms.push({ name: 'no_words', logOdds: NO_WORDS });
    return terms;
  }
  const ending = endingOf(words);
  if (ending === 'continuation') terms.push({ name: 'continuation', logOdds: CONTINUATION });
  else if (ending === 'weak_continuation') terms.push({ name: 'weak_continuation', logOdds: WEAK_CONTINUATION });
  else if (words.length >= 3 && QUESTION_OPENINGS.has(words[0])) terms.push({ name: 'question', logOdds: QUESTION });
  // The recogniser's final words are its settled answer: how its partials wandered before them says
  // nothing about the turn, and depends on how the audio happened to be batched.
  if (final !== true && stableMs < UNSTABLE_MS) terms.push({ name: 'unstable', logOdds: UNSTABLE });
  return terms;
}

/**
 * How the words end: on a word after which a turn almost never ends, seldom ends, or a plain ending.
 * "like" holds a turn open only where it wants an object ("I would like", "it looks like"); after a
 * noun ("the kitchen like", the recogniser's guess for "light") it is no reason to wait.
 */
export function endingOf(words: readonly string[]): 'continuation' | 'weak_continuation' | 'complete' | 'none' {
  if (words.length === 0) return 'none';
  const last = words[words.length - 1];
  if (last === 'like') {
    const before = words.length > 1 ? words[words.length - 2] : '';
    return words.length === 1 || LIKE_WANTS_MORE_AFTER.has(before) ? 'continuation' : 'complete';
  }
  if (CONTINUATION_WORDS.has(last)) return 'continuation';
  if (WEAK_CONTINUATION_WORDS.has(last)) return 'weak_continuation';
  return 'complete';
}

/** Lower-case words without punctuation ("Don't," → "don't"). */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/[^a-z']/g, ''))
    .filter((word) => word.length > 0);
}
