/**
 * The listening half of a stream: 24 kHz frames in; turn events and transcripts out.
 *
 * Silero VAD scores each 32 ms, the turn detector turns scores into speech/pause/end signals, and
 * the recogniser decodes only speech (from `asrLeadMs` before the onset), closing its utterance at
 * every pause. Work that touches the recogniser or an item runs on one promise chain, so events
 * keep their order however long a decode takes.
 */
import { EngineEvent, TurnDetectionConfig } from '../../../session-core';
import { PocketsphinxDecoder } from '../../../../libs/pocketsphinx';
import { TimedWord } from './partial-stabilizer';
import { SampleHistory } from '../../listening/sample-history';
import { SegmentRecognizer } from './segment-recognizer';
import { SileroVadModel, VAD_FRAME_MS, VadScorer } from '../../listening/silero-vad';
import { TranscriptItem } from './transcript-item';
import { TurnDetector, TurnSignal } from '../../listening/turn-detector';

const SAMPLES_PER_MS = 24;
/** One VAD frame: partial results can change every 32 ms, and the stability timer needs that resolution. */
const MIN_BATCH_MS = 32;
/** Silence that closes a recogniser utterance when the session ends turns (see reportProgress). */
const SESSION_TURNS_SPLIT_PAUSE_MS = 160;

export interface ListenerOptions {
  turnDetection: TurnDetectionConfig | null;
  /** Speech threshold when turn detection is off (utterances are still split at pauses). */
  defaultThreshold: number;
  minSpeechMs: number;
  splitPauseMs: number;
  maxUtteranceMs: number;
  asrLeadMs: number;
  stableMs: number;
  settledMs: number;
  maxBatchMs: number;
  newItemId: () => string;
}

export interface ListenerEvents {
  emit(event: EngineEvent): void;
  /** Speech confirmed (in either turn mode): the live persona stops talking. */
  speechStarted(): void;
  /** A final transcript was delivered. */
  turnFinished(itemId: string, transcript: string): void;
  error(error: unknown): void;
}

export class Listener {
  private readonly history = new SampleHistory();
  private readonly detector: TurnDetector;
  private readonly scorer: VadScorer;
  private readonly recognizer: SegmentRecognizer;
  private readonly auto: boolean;
  private readonly sessionEndsTurns: boolean;
  private chain: Promise<void> = Promise.resolve();
  private item: TranscriptItem | null = null;
  /** The item the recogniser's current segment belongs to. */
  private segmentItem: TranscriptItem | null = null;
  private lastItemEndMs = 0;
  /** No segment may start before this sample (audio already decoded or cleared). */
  private segmentFloor = 0;
  /** Start of a segment that is queued but not begun; its audio must stay in the history. */
  private pinnedPos: number | null = null;
  private vadEndMs = 0;
  /** Stream position of the last commit() or clear(). */
  private lastCutPos = 0;
  /** commit()/clear() calls waiting for the VAD to reach the audio position they were made at. */
  private commands: Array<{ pos: number; run: () => void }> = [];

  constructor(
    decoder: PocketsphinxDecoder,
    vad: SileroVadModel,
    private readonly options: ListenerOptions,
    private readonly events: ListenerEvents,
  ) {
    this.auto = options.turnDetection !== null;
    // With end-of-turn confidence the session ends turns (commit()); this stream reports progress.
    this.sessionEndsTurns = (options.turnDetection?.endOfTurn ?? null) !== null;
    this.detector = new TurnDetector({
      threshold: options.turnDetection?.threshold ?? options.defaultThreshold,
      silenceDurationMs: this.sessionEndsTurns ? null : (options.turnDetection?.silenceDurationMs ?? null),
      minSpeechMs: options.minSpeechMs,
      // The session's end-of-turn model reads final words best: the recogniser closes its utterance
      // sooner in a pause, so that they are there when the silence starts to count.
      splitPauseMs: Math.min(
        this.sessionEndsTurns ? SESSION_TURNS_SPLIT_PAUSE_MS : options.splitPauseMs,
        options.splitPauseMs,
        options.turnDetection?.silenceDurationMs ?? Infinity,
      ),
      maxUtteranceMs: options.maxUtteranceMs,
      frameMs: VAD_FRAME_MS,
    });
    this.scorer = vad.createScorer({
      frame: (probability, index, levels) => this.onVadFrame(probability, index, levels),
      caughtUp: () => this.runCommandsUpTo(Infinity),
      error: (error) => events.error(error),
    });
    this.recognizer = new SegmentRecognizer(
      decoder,
      this.history,
      {
        sampleRate: SAMPLES_PER_MS * 1000,
        stableMs: options.stableMs,
        settledMs: options.settledMs,
        maxBatchSamples: options.maxBatchMs * SAMPLES_PER_MS,
        minBatchSamples: MIN_BATCH_MS * SAMPLES_PER_MS,
      },
      (words) => this.onStableWords(words),
      (error) => events.error(error),
    );
  }

  /** Milliseconds of input received. */
  get receivedMs(): number {
    return Math.floor(this.history.end / SAMPLES_PER_MS);
  }

  pushAudio(samples: Int16Array): void {
    this.history.append(samples);
    this.scorer.push(samples);
    // Inside an utterance the decoder need not wait for the VAD's frames (the part of a frame left
    // over until the next push): at worst it hears a little of the pause that ends the utterance.
    if (this.detector.inUtterance) this.recognizer.pump(this.history.end);
    this.trimHistory();
  }

  /** Ends the current item at the audio received so far; its final transcript follows. */
  commit(): void {
    this.atCurrentPosition((pos) => {
      const endMs = Math.floor(pos / SAMPLES_PER_MS);
      if (this.auto && this.item && this.detector.speaking) {
        // Ended by the session's end-of-turn model: speech stopped where the voice did.
        const audioEndMs = this.sessionEndsTurns ? Math.min(endMs, this.detector.lastVoiceEndMs ?? endMs) : endMs;
        this.events.emit({ type: 'speech_stopped', itemId: this.item.id, audioEndMs });
      }
      this.forgetTurn();
      this.endSegment(pos);
      if (!this.item && pos > this.lastCutPos)
        this.item = this.newItem(Math.max(this.lastItemEndMs, Math.floor(this.lastCutPos / SAMPLES_PER_MS)));
      this.finishItem(endMs);
      this.lastCutPos = pos;
    });
  }

  /** Drops the current item (the audio received so far) without a transcript. */
  clear(): void {
    this.atCurrentPosition((pos) => {
      this.forgetTurn();
      this.item = null;
      this.lastCutPos = pos;
      this.lastItemEndMs = Math.max(this.lastItemEndMs, Math.floor(pos / SAMPLES_PER_MS));
      this.enqueue(async () => {
        await this.recognizer.abort();
        this.segmentItem = null;
        this.segmentFloor = Math.max(this.segmentFloor, pos);
      });
    });
  }

  /** Scores what was pushed, delivers the last final transcript and stops listening. */
  async flush(): Promise<void> {
    await this.scorer.idle();
    this.runCommandsUpTo(Infinity);
    if (this.item || this.recognizer.isActive || this.pinnedPos !== null) {
      const endMs = this.receivedMs;
      if (this.auto && this.item && this.detector.speaking) {
        this.events.emit({ type: 'speech_stopped', itemId: this.item.id, audioEndMs: endMs });
      }
      this.endSegment(this.history.end);
      this.finishItem(endMs);
    }
    this.scorer.stop();
    await this.chain;
  }

  /**
   * The VAD runs a little behind the audio (more when a client sends faster than real time), so a
   * commit or clear takes effect when the VAD reaches the position it was made at: speech before it
   * belongs to the item it ends, speech after it to the next.
   */
  private atCurrentPosition(run: (pos: number) => void): void {
    const pos = this.history.end;
    if (this.commands.length === 0 && this.scorer.caughtUp) run(pos);
    else this.commands.push({ pos, run: () => run(pos) });
  }

  private runCommandsUpTo(pos: number): void {
    while (this.commands.length > 0 && this.commands[0].pos <= pos)
      (this.commands.shift() as { run: () => void }).run();
  }

  private onVadFrame(probability: number, index: number, levels: number[]): void {
    const startMs = index * VAD_FRAME_MS;
    this.runCommandsUpTo(startMs * SAMPLES_PER_MS);
    this.vadEndMs = startMs + VAD_FRAME_MS;
    for (const signal of this.detector.frame(probability, startMs, levels)) this.onSignal(signal);
    this.recognizer.pump(this.vadEndMs * SAMPLES_PER_MS);
    this.reportProgress();
  }

  /**
   * Every VAD frame of an open turn, for the session's end-of-turn model. The report waits on the
   * work chain, behind any recogniser utterance closed before it, so that the words it carries for
   * audio time t are those the recogniser had for the audio up to t however fast the audio arrived
   * and however it was batched (a busy decoder delays the report, it does not change it).
   */
  private reportProgress(): void {
    const lastVoiceEndMs = this.detector.lastVoiceEndMs;
    const item = this.item;
    if (!this.sessionEndsTurns || item === null || lastVoiceEndMs === null) return;
    const audioMs = this.vadEndMs;
    this.enqueue(async () => {
      if (this.item !== item) return; // ended (committed) meanwhile
      const open = this.segmentItem === item && this.recognizer.isActive;
      const partial = open ? this.recognizer.partialWords : [];
      const hypothesis = [item.transcript, ...partial].filter((text) => text.length > 0).join(' ');
      // A closed segment's words are final: the hypothesis has heard everything so far.
      const hypothesisMs = open ? Math.floor(this.recognizer.decodedUntil / SAMPLES_PER_MS) : audioMs;
      this.events.emit({
        type: 'turn_progress',
        itemId: item.id,
        audioMs,
        silenceMs: Math.max(0, audioMs - lastVoiceEndMs),
        hypothesis,
        hypothesisMs,
        hypothesisFinal: !open,
      });
    });
  }

  private forgetTurn(): void {
    for (const signal of this.detector.reset()) this.onSignal(signal);
  }

  private onSignal(signal: TurnSignal): void {
    switch (signal.type) {
      case 'suspect':
        return this.events.emit({ type: 'speech_suspected' });
      case 'ruled_out':
        return this.events.emit({ type: 'speech_ruled_out' });
      case 'speech_start': {
        if (this.auto || !this.item) {
          const padding = this.options.turnDetection?.prefixPaddingMs ?? this.options.asrLeadMs;
          this.item = this.newItem(Math.max(0, signal.onsetMs - padding, this.lastItemEndMs));
        }
        if (this.auto)
          this.events.emit({ type: 'speech_started', itemId: this.item.id, audioStartMs: this.item.audioStartMs });
        this.events.speechStarted();
        this.beginSegment(signal.onsetMs);
        return;
      }
      case 'resume':
        this.item ??= this.newItem(Math.max(this.lastItemEndMs, signal.onsetMs - this.options.asrLeadMs));
        this.beginSegment(signal.onsetMs);
        return;
      case 'pause':
        // The decoder also hears the pause so far: trailing silence helps it settle the last word.
        this.endSegment(this.vadEndMs * SAMPLES_PER_MS);
        return;
      case 'speech_end':
        if (this.item)
          this.events.emit({ type: 'speech_stopped', itemId: this.item.id, audioEndMs: signal.speechEndMs });
        this.finishItem(signal.speechEndMs);
        return;
    }
  }

  private newItem(audioStartMs: number): TranscriptItem {
    return new TranscriptItem(this.options.newItemId(), audioStartMs);
  }

  private beginSegment(onsetMs: number): void {
    const item = this.item;
    const from = Math.max(0, (onsetMs - this.options.asrLeadMs) * SAMPLES_PER_MS);
    const previousEnd = this.vadEndMs * SAMPLES_PER_MS;
    this.pinnedPos = Math.min(this.pinnedPos ?? from, from);
    this.enqueue(async () => {
      this.pinnedPos = null;
      if (this.recognizer.isActive) await this.closeSegment(this.recognizer.end(Math.max(from, previousEnd)));
      this.segmentItem = item;
      this.recognizer.begin(Math.max(from, this.segmentFloor));
    });
  }

  private endSegment(untilPos: number): void {
    this.enqueue(() => this.closeSegment(this.recognizer.end(untilPos)));
  }

  private async closeSegment(ending: ReturnType<SegmentRecognizer['end']>): Promise<void> {
    const result = await ending;
    this.segmentFloor = Math.max(this.segmentFloor, this.recognizer.fedUntil);
    const item = this.segmentItem;
    if (!item) return;
    item.addFinalWords(result.words);
    this.emitDelta(item, result.unsent);
  }

  private finishItem(endMs: number): void {
    const item = this.item;
    this.item = null;
    if (!item) return;
    this.lastItemEndMs = Math.max(this.lastItemEndMs, endMs);
    const untilPos = endMs * SAMPLES_PER_MS;
    this.enqueue(async () => {
      if (this.segmentItem === item && this.recognizer.isActive) await this.closeSegment(this.recognizer.end(untilPos));
      if (this.segmentItem === item) this.segmentItem = null;
      this.events.emit(item.finish(Math.max(endMs, item.audioStartMs)));
      this.events.turnFinished(item.id, item.transcript);
    });
  }

  private onStableWords(words: TimedWord[]): void {
    if (this.segmentItem) this.emitDelta(this.segmentItem, words);
  }

  private emitDelta(item: TranscriptItem, words: TimedWord[]): void {
    const event = item.delta(words);
    if (event) this.events.emit(event);
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((error: unknown) => this.events.error(error));
  }

  /** Keeps what a segment may still read: its unfed audio, and padding before the VAD's position. */
  private trimHistory(): void {
    const keepMs = Math.max(this.options.asrLeadMs, this.options.turnDetection?.prefixPaddingMs ?? 0) + 1000;
    let keepFrom = (this.vadEndMs - keepMs) * SAMPLES_PER_MS;
    if (this.recognizer.isActive) keepFrom = Math.min(keepFrom, this.recognizer.fedUntil);
    if (this.pinnedPos !== null) keepFrom = Math.min(keepFrom, this.pinnedPos);
    this.history.discardBefore(keepFrom);
  }
}
