/**
 * The `aria` voice: Debian's libflite in this process (libs/flite), one sentence per call on the
 * libuv thread pool, its 16 kHz speech resampled to the session's 24 kHz. It replaced one `flite`
 * CLI process per sentence, whose fork and voice load cost 20–40 ms a sentence on the
 * voice-to-voice path; the samples and phone timings are the CLI's, unchanged.
 *
 * Voice choice (measured by recognising flite speech with the engine's own recogniser, 20
 * sentences): rms 6.5% WER, awb 6.5%, slt 16.5%; kal16 is a diphone voice and sounds the most
 * robotic. rms (US English) is the default.
 */
import { FliteVoice, isFliteVoice, synthesize } from '../../../../libs/flite';
import { resampleClip } from '../../../platform/audio/resampler';
import { alignWords, phonesFromSegments, SpokenWord } from './word-timing';

export interface SynthesizedSpeech {
  /** pcm16 mono at `sampleRate`. */
  pcm: Int16Array;
  sampleRate: number;
  words: SpokenWord[];
}

export interface FliteOptions {
  /** One of libs/flite's FLITE_VOICES; a string because test sets name voices in data. */
  voice?: string;
  /** Output rate; flite's own rate when null. */
  sampleRate?: number | null;
}

export class FliteSynthesizer {
  private readonly voice: FliteVoice;
  private readonly sampleRate: number | null;

  constructor(options: FliteOptions = {}) {
    const voice = options.voice ?? 'rms';
    // At construction, so a misconfigured engine fails at start rather than on its first reply.
    if (!isFliteVoice(voice)) throw new Error(`unknown flite voice '${voice}'`);
    this.voice = voice;
    this.sampleRate = options.sampleRate === undefined ? 24_000 : options.sampleRate;
  }

  async synthesize(text: string): Promise<SynthesizedSpeech> {
    const speech = await synthesize(this.voice, text);
    const rate = this.sampleRate ?? speech.sampleRate;
    return {
      pcm: resampleClip(speech.samples, speech.sampleRate, rate),
      sampleRate: rate,
      words: alignWords(text, phonesFromSegments(speech.segments)),
    };
  }
}
