/**
 * Drives one pocketsphinx decoder through short utterances ("segments") of a stream. Audio is read
 * from the stream's history and sent in batches: at most one decode is in flight, and whatever
 * arrived meanwhile goes in the next call, so a busy machine gives fewer, larger calls instead of a
 * growing queue. Times are session milliseconds at 24 kHz.
 */
import {
  baseWord,
  DecoderResult,
  FRAMES_PER_SECOND,
  isFiller,
  PocketsphinxDecoder,
} from '../../../../libs/pocketsphinx';
import { PartialStabilizer, TimedWord } from './partial-stabilizer';
import { SampleHistory } from '../../listening/sample-history';

export interface SegmentRecognizerOptions {
  sampleRate: number;
  stableMs: number;
  /** Stable time of a word that another word already follows. */
  settledMs: number;
  /** Largest batch per decode call; keeps partial results flowing when catching up. */
  maxBatchSamples: number;
  /** Smallest batch worth a decode call (fewer thread hops per second). */
  minBatchSamples: number;
}

export interface SegmentResult {
  /** Every word of the segment's final hypothesis. */
  words: TimedWord[];
  /** The final words not yet reported as stable partials. */
  unsent: TimedWord[];
}

export class SegmentRecognizer {
  private active = false;
  private ending = false;
  private startPos = 0;
  private fedPos = 0;
  private decodedPos = 0;
  private inFlight: Promise<void> | null = null;
  /** Audio up to here may be decoded: the voice activity detector has already judged it. */
  private gate = 0;
  private stabilizer: PartialStabilizer;
  private readonly samplesPerMs: number;

  constructor(
    private readonly decoder: PocketsphinxDecoder,
    private readonly history: SampleHistory,
    private readonly options: SegmentRecognizerOptions,
    private readonly onStableWords: (words: TimedWord[]) => void,
    private readonly onError: (error: unknown) => void,
  ) {
    this.samplesPerMs = options.sampleRate / 1000;
    this.stabilizer = new PartialStabilizer(options.stableMs, options.settledMs);
  }

  get isActive(): boolean {
    return this.active;
  }

  /** The open segment's latest partial hypothesis (empty when none is open). */
  get partialWords(): readonly string[] {
    return this.active ? this.stabilizer.latest : [];
  }

  /** Sample position up to which the partial hypothesis has heard the audio. */
  get decodedUntil(): number {
    return this.decodedPos;
  }

  /** Sample position up to which audio has been handed to the decoder. */
  get fedUntil(): number {
    return this.fedPos;
  }

  /** Starts a segment whose audio begins at sample `fromPos`. */
  begin(fromPos: number): void {
    if (this.active) throw new Error('segment already active');
    this.active = true;
    this.startPos = fromPos;
    this.fedPos = fromPos;
    this.decodedPos = fromPos;
    this.stabilizer = new PartialStabilizer(this.options.stableMs, this.options.settledMs);
    this.decoder.startUtt().catch((error: unknown) => this.onError(error));
    this.pump();
  }

  /**
   * Sends audio up to `gate` unless a decode is already running (it pumps again when done). The
   * listener sets the gate: the VAD's position, so that a segment never swallows much audio past
   * the pause that ends it however fast audio arrives, or all audio received while it is inside
   * an utterance.
   */
  pump(gate = this.gate): void {
    this.gate = Math.max(this.gate, gate);
    if (!this.active || this.ending || this.inFlight) return;
    const to = Math.min(this.history.end, this.gate, this.fedPos + this.options.maxBatchSamples);
    if (to - this.fedPos < this.options.minBatchSamples) return;
    const pcm = this.history.read(this.fedPos, to);
    this.fedPos = to;
    this.inFlight = this.decoder.process(pcm, true).then(
      (result) => {
        this.inFlight = null;
        this.decodedPos = to;
        const fresh = this.stabilizer.update(this.words(result), this.msAt(to));
        if (fresh.length > 0) this.onStableWords(fresh);
        this.pump();
      },
      (error: unknown) => {
        this.inFlight = null;
        this.onError(error);
      },
    );
  }

  /** Feeds audio up to `untilPos` and closes the segment. */
  async end(untilPos: number): Promise<SegmentResult> {
    if (!this.active) return { words: [], unsent: [] };
    this.ending = true;
    try {
      while (this.inFlight) await this.inFlight;
      if (untilPos > this.fedPos) {
        await this.decoder.process(this.history.read(this.fedPos, untilPos), false);
        this.fedPos = untilPos;
      }
      const words = this.words(await this.decoder.endUtt(true));
      return { words, unsent: this.stabilizer.finish(words) };
    } finally {
      this.active = false;
      this.ending = false;
    }
  }

  /** Closes the segment and throws its result away (clear()). */
  async abort(): Promise<void> {
    if (!this.active) return;
    this.ending = true;
    try {
      while (this.inFlight) await this.inFlight;
      await this.decoder.endUtt(false);
    } finally {
      this.active = false;
      this.ending = false;
    }
  }

  private msAt(position: number): number {
    return Math.round(position / this.samplesPerMs);
  }

  private words(result: DecoderResult): TimedWord[] {
    const startMs = this.startPos / this.samplesPerMs;
    const fedMs = this.fedPos / this.samplesPerMs;
    const frameMs = 1000 / FRAMES_PER_SECOND;
    const out: TimedWord[] = [];
    for (const segment of result.segments ?? []) {
      if (isFiller(segment.word)) continue;
      const wordStart = Math.round(startMs + segment.startFrame * frameMs);
      out.push({
        word: baseWord(segment.word),
        startMs: wordStart,
        endMs: Math.max(wordStart, Math.min(Math.round(startMs + (segment.endFrame + 1) * frameMs), Math.round(fedMs))),
        confidence: segment.posterior,
      });
    }
    return out;
  }
}
