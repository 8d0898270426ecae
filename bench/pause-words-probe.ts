/**
 * Offline probe (no sockets): at a mid-sentence pause, does the recogniser give the end-of-turn model
 * anything to tell a hesitation from a sentence end? Synthesises the end-of-turn calibration set and
 * decodes each turn as the listener's segment would be at the moment the model judges it: from the
 * ASR lead before the speech to 160 ms of silence after the first pause (paused turns) or after the
 * end (complete turns), with the engine's decoder settings. Reports, per split, how the final words
 * end (the model's continuation / weak continuation / complete), and the last word's posterior.
 * `--args '{"bestpathlw":6.5}'` overrides decoder settings, to see what the language model's weight
 * does to the endings it hears at a pause.
 *
 *   npm run build && node dist/bench/pause-words-probe.js [--args JSON] [--list]
 */
import { DEBIAN_EN_US_MODEL, PocketsphinxDecoder, baseWord, isFiller } from '../libs/pocketsphinx';
import { DECODER_ARGS, DEFAULT_TUNING } from '../src/engines/embedded/engine-options';
import { buildCalibrationSet, CalibrationTurn } from '../src/engines/embedded/testing/calibration-set';
import { percentile } from '../src/engines/embedded/testing/speech-timing';
import { endingOf } from '../src/session-core/end-of-turn/end-of-turn.model';

const SAMPLES_PER_MS = 24;
/** The listener closes the recogniser's utterance after this much silence when the session ends turns. */
const SPLIT_PAUSE_MS = 160;

interface Heard {
  turn: CalibrationTurn;
  atPause: boolean;
  words: Array<{ word: string; posterior: number }>;
  ending: ReturnType<typeof endingOf>;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function decode(decoder: PocketsphinxDecoder, turn: CalibrationTurn, toMs: number): Promise<Heard['words']> {
  const fromMs = Math.max(0, turn.speechStartMs - DEFAULT_TUNING.asrLeadMs);
  await decoder.startUtt();
  await decoder.process(turn.pcm.subarray(fromMs * SAMPLES_PER_MS, toMs * SAMPLES_PER_MS), false);
  const result = await decoder.endUtt(true);
  return (result.segments ?? [])
    .filter((s) => !isFiller(s.word))
    .map((s) => ({ word: baseWord(s.word), posterior: s.posterior }));
}

function report(split: string, heard: Heard[]): void {
  const count = (group: Heard[], ending: Heard['ending']) => group.filter((h) => h.ending === ending).length;
  const lastPosterior = (group: Heard[]) => group.map((h) => h.words[h.words.length - 1]?.posterior ?? 0);
  const fmt = (values: number[]) => [10, 25, 50].map((p) => percentile(values, p).toFixed(2)).join(' / ');
  const paused = heard.filter((h) => h.atPause);
  const complete = heard.filter((h) => !h.atPause);
  const misheard = paused.filter((h) => h.ending === 'complete');
  console.log(
    `${split}: paused turns ${paused.length}, heard ending on a continuation ${count(paused, 'continuation')}, ` +
      `weak ${count(paused, 'weak_continuation')}, complete ${misheard.length}; ` +
      `complete turns ${complete.length}, heard on a continuation ${count(complete, 'continuation')}, ` +
      `weak ${count(complete, 'weak_continuation')}`,
  );
  console.log(
    `  last word's posterior p10 / p25 / p50: paused turns heard complete ${fmt(lastPosterior(misheard))}; ` +
      `complete turns ${fmt(lastPosterior(complete))}`,
  );
}

async function main(): Promise<void> {
  const args = { ...DECODER_ARGS, ...(JSON.parse(option('--args') ?? '{}') as typeof DECODER_ARGS) };
  const turns = await buildCalibrationSet();
  const decoder = await PocketsphinxDecoder.create(DEBIAN_EN_US_MODEL, args);
  try {
    // As the engine's decoder factory does: one utterance first, so the cepstral mean is speech's.
    await decode(decoder, turns[0], turns[0].speechEndMs + SPLIT_PAUSE_MS);
    const heard: Heard[] = [];
    for (const turn of turns) {
      const atPause = turn.pauses.length > 0;
      const words = await decode(decoder, turn, (atPause ? turn.pauses[0].startMs : turn.speechEndMs) + SPLIT_PAUSE_MS);
      heard.push({ turn, atPause, words, ending: endingOf(words.map((w) => w.word)) });
    }
    console.log(`decoder settings: ${JSON.stringify(args)}`);
    for (const split of ['tune', 'held_out'] as const)
      report(
        split,
        heard.filter((h) => h.turn.split === split),
      );
    if (process.argv.includes('--list')) {
      for (const h of heard.filter((x) => x.atPause && x.ending !== 'continuation'))
        console.log(
          `  ${h.turn.split} ${h.turn.voice} ${h.turn.pauseMs} ms "${h.turn.text}" → "${h.words.map((w) => w.word).join(' ')}"`,
        );
    }
  } finally {
    await decoder.free();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
