/**
 * Options of the embedded speech engine, with the defaults measured on the project's 2-core
 * machine (see the report in bench/results/engine.json and the accuracy specs).
 */
import { DEBIAN_EN_US_MODEL, DecoderArgs, ModelPaths } from '../../../libs/pocketsphinx';
import type { Timers } from '../../platform/clock/timers';

/** Where the engine reports problems; nothing is printed without one. */
export interface EngineLogger {
  warn?(message: string): void;
  error?(message: string): void;
}

export interface EmbeddedEngineOptions {
  /** Concurrent streams (one pocketsphinx decoder of about 90 MB each). Default 8. */
  maxStreams?: number;
  /** Decoders loaded at start(), so the first sessions do not wait about 250 ms for a model. */
  warmDecoders?: number;
  /** Acoustic model, language model and dictionary; Debian's pocketsphinx-en-us by default. */
  model?: Partial<ModelPaths>;
  /** Extra pocketsphinx options, merged over DECODER_ARGS. */
  decoderArgs?: DecoderArgs;
  /** The flite voice that speaks `aria` (libs/flite's FLITE_VOICES); rms by default. */
  flite?: { voice?: string };
  /** retry_after_ms suggested when the engine is full. Default 2000. */
  retryAfterMs?: number;
  logger?: EngineLogger;
  /**
   * Batch (file) work on streams of a process of its own, at a lower OS priority (batch-process/):
   * its own decoders, never this engine's streams. Absent or 0 streams: batch work shares this engine.
   */
  batch?: { maxStreams: number; nice: number };
  /** Tuning, mostly for tests and the benchmark. */
  tuning?: Partial<EngineTuning>;
  /** The persona's clock (time and date answers). */
  now?: () => Date;
  /** What replies are paced on (the service's one clock); node's timers by default. */
  clock?: Timers;
}

export interface EngineTuning {
  /** Speech threshold when a session has no turn detection (utterances still split at pauses). */
  defaultVadThreshold: number;
  /** Speech shorter than this is not a turn (clicks, breaths). */
  minSpeechMs: number;
  /** Silence after which the recogniser closes its utterance inside a turn. */
  splitPauseMs: number;
  /** Longest recogniser utterance; longer speech is cut at a dip (ps_end_utt grows with length). */
  maxUtteranceMs: number;
  /** Audio before a detected onset that the recogniser also hears (VAD onsets are a little late). */
  asrLeadMs: number;
  /** Audio time a partial word must stay unchanged before it is sent (see partial-stabilizer.ts). */
  partialStableMs: number;
  /** The same for a word another word already follows (see partial-stabilizer.ts). */
  partialSettledMs: number;
  /** Largest audio batch per decode call when catching up. */
  maxDecodeBatchMs: number;
  /** How far ahead of real time the voice is sent. */
  outputLeadMs: number;
}

export type EmbeddedEngineSettings = EngineTuning & { now: () => Date; clock: Timers };

export const DEFAULT_TUNING: EngineTuning = {
  defaultVadThreshold: 0.5,
  minSpeechMs: 96,
  splitPauseMs: 320,
  maxUtteranceMs: 10_000,
  asrLeadMs: 300,
  partialStableMs: 160,
  partialSettledMs: 64,
  maxDecodeBatchMs: 1000,
  outputLeadMs: 160,
};

/**
 * pocketsphinx settings, chosen by measurement over the Debian test recordings and flite speech:
 * - 24 kHz straight from the session (`samprate`/`nfft`): same WER as resampling to 16 kHz, no
 *   resampler in the path.
 * - `fwdflat: false`: same WER here, and ps_end_utt drops from about 60 ms (340 ms worst) to
 *   about 6 ms (30 ms worst), which is what keeps the final transcript prompt.
 * - `maxhmmpf: 3000`: about 25% less CPU with no measured WER change.
 * - `remove_silence: false`: the VAD already gates audio, and pocketsphinx's own silence removal
 *   drops frames, which would shift every word time.
 * - `remove_noise: false` and `bestpathlw: 11` (issue 17): pocketsphinx's spectral noise
 *   subtraction tracks a noise floor that the VAD-gated, pause-split segments never show it, and
 *   distorts real recordings; with it off the best-path search wants a heavier language model.
 *   Measured in the engine bench's order (flite voices, then LibriVox, then cards; words wrong):
 *   LibriVox 20 → 16 of 71 (WER 0.282 → 0.225), cards 5 → 5 of 21, flite awb 10 → 7, rms 9 → 11,
 *   slt 20 → 22 of 139 each (flite 39 → 40 of 417). `remove_noise: false` alone: LibriVox 0.239;
 *   `bestpathlw` 10.5–12 alike. Tried and dropped (no gain on LibriVox, or a loss on flite): VAD
 *   padding before onsets 0–500 ms (`asrLeadMs`; no change) and after (`splitPauseMs` 240/400: no
 *   change, 100: worse), `lw` 6–12 (7–7.5: LibriVox 0.268 but flite worse; ≥ 8 worse), `wip`
 *   0.05–2 (0.2: LibriVox 0.268, flite awb worse), wider `beam`/`wbeam`/`pbeam`, `maxhmmpf` up to
 *   unlimited, `topn` 8, `pip`, `nwpen`, `silprob`, `fillprob`, `fwdflat`, `bestpath: false`
 *   (LibriVox 0.254, flite worse on every voice), a longer primer sentence, and a dictionary
 *   without `mr` (the reference says "mister"; the language model then picks "master").
 * - `maxwpf: 10` (issue 17, for more streams per core): at most 10 distinct words may end in a
 *   frame (the default is unlimited). Every final transcript of every test corpus stays word for
 *   word the same (`maxwpf: 5` costs LibriVox 4 words); decoding takes 9% fewer instructions
 *   (callgrind, LibriVox and cards in 80 ms calls: 8.95 → 8.13 G). `pl_window: 5` measured
 *   "faster" too on this shared machine, but 5 is already the default: timings here vary ±20%.
 *   Faster still, and dropped for their words (callgrind, LibriVox and cards in 80 ms calls; WER in
 *   this engine): `ds: 2` 21% fewer instructions, LibriVox 0.282, flite slt 0.201; with
 *   `maxhmmpf: 2000` 34% fewer, LibriVox 0.310. `maxhmmpf: 1500` and `topn: 2` (the decoder alone,
 *   whole utterances: LibriVox 30 and 24 words wrong of 71, against 20) were not tried further.
 */
export const DECODER_ARGS: DecoderArgs = {
  samprate: 24_000,
  nfft: 1024,
  fwdflat: false,
  bestpath: true,
  maxhmmpf: 3000,
  remove_silence: false,
  remove_noise: false,
  bestpathlw: 11,
  maxwpf: 10,
};

export function resolveModel(model: Partial<ModelPaths> | undefined): ModelPaths {
  return { ...DEBIAN_EN_US_MODEL, ...model };
}
