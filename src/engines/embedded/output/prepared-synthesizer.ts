/**
 * Speculative synthesis for an eager end of turn: the answer's first piece is synthesised while
 * the user's turn is only probably over, and handed to the player if the answer it then gives
 * starts with the same piece. A prepared piece that is not used, or is discarded (the user
 * went on speaking), is wasted work, counted for the benchmark.
 */
import type { SynthesizedSpeech } from './flite-synthesizer';
import { piecesOf, type Synthesizer } from './response-player';

export class PreparedSynthesizer implements Synthesizer {
  private prepared: { piece: string; speech: Promise<SynthesizedSpeech> } | null = null;
  preparedCount = 0;
  usedCount = 0;

  constructor(private readonly inner: Synthesizer) {}

  /** Starts synthesising the first piece of `reply`, replacing any earlier preparation. */
  prepare(reply: string): void {
    const piece = piecesOf(reply)[0]?.text;
    if (piece === undefined || this.prepared?.piece === piece) return;
    const speech = this.inner.synthesize(piece);
    speech.catch(() => undefined); // a failure is reported when (if) the piece is spoken
    this.prepared = { piece, speech };
    this.preparedCount++;
  }

  discard(): void {
    this.prepared = null;
  }

  synthesize(text: string): Promise<SynthesizedSpeech> {
    const prepared = this.prepared;
    if (prepared !== null && prepared.piece === text) {
      this.prepared = null;
      this.usedCount++;
      return prepared.speech;
    }
    return this.inner.synthesize(text);
  }
}
