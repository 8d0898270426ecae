/**
 * Speculative synthesis for an eager end of turn: the answer's first sentence is synthesised while
 * the user's turn is only probably over, and handed to the player if the answer it then gives
 * starts with the same sentence. A prepared sentence that is not used, or is discarded (the user
 * went on speaking), is wasted work, counted for the benchmark.
 */
import type { SynthesizedSpeech } from './flite-synthesizer';
import { sentencesOf, type Synthesizer } from './response-player';

export class PreparedSynthesizer implements Synthesizer {
  private prepared: { sentence: string; speech: Promise<SynthesizedSpeech> } | null = null;
  preparedCount = 0;
  usedCount = 0;

  constructor(private readonly inner: Synthesizer) {}

  /** Starts synthesising the first sentence of `reply`, replacing any earlier preparation. */
  prepare(reply: string): void {
    const sentence = sentencesOf(reply)[0];
    if (sentence === undefined || this.prepared?.sentence === sentence) return;
    const speech = this.inner.synthesize(sentence);
    speech.catch(() => undefined); // a failure is reported when (if) the sentence is spoken
    this.prepared = { sentence, speech };
    this.preparedCount++;
  }

  discard(): void {
    this.prepared = null;
  }

  synthesize(text: string): Promise<SynthesizedSpeech> {
    const prepared = this.prepared;
    if (prepared !== null && prepared.sentence === text) {
      this.prepared = null;
      this.usedCount++;
      return prepared.speech;
    }
    return this.inner.synthesize(text);
  }
}
