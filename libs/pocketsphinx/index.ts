/**
 * Typed wrapper over the pocketsphinx N-API addon (build/Release/pocketsphinx.node, built by
 * scripts/build-addon.sh). Every decoder call runs on the libuv thread pool; this wrapper queues a
 * decoder's calls so they reach the native side one at a time and in order.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** A word (or filler such as `<sil>`) of a hypothesis, in 10 ms frames from the utterance start. */
export interface DecoderSegment {
  /** Dictionary spelling; alternative pronunciations carry a suffix such as `was(2)`. */
  word: string;
  startFrame: number;
  /** Inclusive: the last frame in which the word was active. */
  endFrame: number;
  /** Posterior probability (0..1); 1 for partial hypotheses, which have no lattice yet. */
  posterior: number;
}

export interface DecoderResult {
  /** Best hypothesis so far (partial) or of the utterance (after endUtt), fillers removed. */
  hyp: string;
  /** pocketsphinx's own voice activity flag (meaningless with `-remove_silence no`). */
  inSpeech: boolean;
  /** Frames searched in this utterance. */
  frames: number;
  /** Present when asked for. */
  segments?: DecoderSegment[];
}

/** pocketsphinx command-line options without the leading dash, e.g. `{ samprate: 24000 }`. */
export type DecoderArgs = Record<string, string | number | boolean>;

export interface ModelPaths {
  /** Acoustic model directory. */
  hmm: string;
  /** N-gram language model. */
  lm: string;
  /** Pronunciation dictionary. */
  dict: string;
}

/** Where Debian's `pocketsphinx-en-us` package installs the US English model. */
export const DEBIAN_EN_US_MODEL: ModelPaths = {
  hmm: '/usr/share/pocketsphinx/model/en-us/en-us',
  lm: '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin',
  dict: '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict',
};

/** Frames per second of pocketsphinx's front end (`-frate` default). */
export const FRAMES_PER_SECOND = 100;

interface NativeDecoder {
  init(args: string[]): Promise<void>;
  startUtt(): Promise<void>;
  process(pcm: Int16Array, withSegments: boolean): Promise<DecoderResult>;
  endUtt(withSegments: boolean): Promise<DecoderResult>;
  free(): Promise<void>;
}

interface NativeModule {
  Decoder: new () => NativeDecoder;
}

const ADDON_FILE = join('build', 'Release', 'pocketsphinx.node');

/**
 * The addon sits beside this file when run from source (ts-jest, ts-node) and under the
 * repository's libs/pocketsphinx when run from the compiled dist/libs/pocketsphinx.
 */
export function addonPath(): string {
  const candidates = [
    join(__dirname, ADDON_FILE),
    join(__dirname, '..', '..', '..', 'libs', 'pocketsphinx', ADDON_FILE),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) {
    throw new Error(`pocketsphinx addon not built (looked in ${candidates.join(', ')}); run scripts/build-addon.sh`);
  }
  return found;
}

let nativeModule: NativeModule | undefined;

function loadNative(): NativeModule {
  nativeModule ??= require(addonPath()) as NativeModule;
  return nativeModule;
}

/** Turns `{ samprate: 24000, fwdflat: false }` into `['-samprate', '24000', '-fwdflat', 'no']`. */
export function toArgv(args: DecoderArgs): string[] {
  const argv: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    argv.push(name.startsWith('-') ? name : `-${name}`);
    argv.push(typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value));
  }
  return argv;
}

export class PocketsphinxDecoder {
  private queue: Promise<unknown> = Promise.resolve();
  private freed = false;

  private constructor(private readonly native: NativeDecoder) {}

  /** Loads a model (about 250 ms and 90 MB for en-us) on the thread pool. */
  static async create(model: ModelPaths, args: DecoderArgs = {}): Promise<PocketsphinxDecoder> {
    const native = new (loadNative().Decoder)();
    await native.init(toArgv({ hmm: model.hmm, lm: model.lm, dict: model.dict, ...args }));
    return new PocketsphinxDecoder(native);
  }

  startUtt(): Promise<void> {
    return this.enqueue(() => this.native.startUtt());
  }

  /** Decodes pcm16 mono at the decoder's `-samprate`; resolves with the partial hypothesis. */
  process(pcm: Int16Array, withSegments = false): Promise<DecoderResult> {
    return this.enqueue(() => this.native.process(pcm, withSegments));
  }

  /** Finishes the utterance; resolves with the final hypothesis. */
  endUtt(withSegments = false): Promise<DecoderResult> {
    return this.enqueue(() => this.native.endUtt(withSegments));
  }

  /** Releases the model. Later calls reject. */
  free(): Promise<void> {
    if (this.freed) return Promise.resolve();
    this.freed = true;
    return this.enqueue(() => this.native.free());
  }

  get isFreed(): boolean {
    return this.freed;
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const result = this.queue.then(job);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

/** Drops pocketsphinx's alternative-pronunciation suffix: `was(2)` → `was`. */
export function baseWord(word: string): string {
  const paren = word.indexOf('(');
  return paren > 0 ? word.slice(0, paren) : word;
}

/** Fillers and sentence markers that are not words: `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++garbage++`. */
export function isFiller(word: string): boolean {
  return word.startsWith('<') || word.startsWith('[') || word.startsWith('+');
}
