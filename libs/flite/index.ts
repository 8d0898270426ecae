/**
 * Typed wrapper over the flite N-API addon (build/Release/flite.node, built by
 * scripts/build-addon.sh): Debian's libflite in this process instead of one `flite` process per
 * sentence. Synthesis runs on the libuv thread pool, one sentence at a time across the process.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The voices Debian's flite1-dev links: clustergen rms, awb and slt; diphone kal (8 kHz) and kal16. */
export const FLITE_VOICES = ['rms', 'awb', 'slt', 'kal', 'kal16'] as const;
export type FliteVoice = (typeof FLITE_VOICES)[number];

/** One item of the utterance's Segment relation: what `flite -psdur` prints as `name:end`. */
export interface FliteSegment {
  /** Phone name; `pau` for a pause. */
  name: string;
  /** End time from the start of the speech (flite's float, not rounded to the CLI's 3 decimals). */
  endSeconds: number;
}

export interface FliteSpeech {
  /** pcm16 mono at `sampleRate`, the samples `flite -o file.wav` writes. */
  samples: Int16Array;
  /** The voice's own rate: 16 kHz, or 8 kHz for kal. */
  sampleRate: number;
  segments: FliteSegment[];
}

interface NativeModule {
  synthesize(voice: string, text: string): Promise<FliteSpeech>;
}

const ADDON_FILE = join('build', 'Release', 'flite.node');

/**
 * The addon sits beside this file when run from source (ts-jest, ts-node) and under the
 * repository's libs/flite when run from the compiled dist/libs/flite.
 */
export function addonPath(): string {
  const candidates = [join(__dirname, ADDON_FILE), join(__dirname, '..', '..', '..', 'libs', 'flite', ADDON_FILE)];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) {
    throw new Error(`flite addon not built (looked in ${candidates.join(', ')}); run scripts/build-addon.sh`);
  }
  return found;
}

let nativeModule: NativeModule | undefined;
/**
 * The addon serialises synthesis with a mutex; queueing here as well means a waiting sentence does
 * not hold one of the pool's four threads, which pocketsphinx's decodes also need.
 */
let queue: Promise<unknown> = Promise.resolve();

function loadNative(): NativeModule {
  nativeModule ??= require(addonPath()) as NativeModule;
  return nativeModule;
}

export function isFliteVoice(name: string): name is FliteVoice {
  return (FLITE_VOICES as readonly string[]).includes(name);
}

/**
 * Speaks `text` as one utterance, exactly as `flite -voice <voice> -psdur -t <text>` would (same
 * samples, same segments). Rejects an unknown voice or text with nothing to say.
 */
export function synthesize(voice: FliteVoice, text: string): Promise<FliteSpeech> {
  const result = queue.then(() => loadNative().synthesize(voice, text));
  queue = result.catch(() => undefined);
  return result;
}
