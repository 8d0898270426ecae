/**
 * One session's stream in the embedded engine: a Listener (VAD, turns, recognition) and, for live
 * sessions, the persona and its voice. The persona answers every final transcript and stops
 * talking as soon as speech is confirmed (barge-in), in either turn mode; the session may also
 * call interrupt() itself.
 */
import { newId } from '../../platform/ids';
import type { EngineEvent, EngineEventSink, EngineStream, EngineStreamConfig } from '../../session-core';
import type { PocketsphinxDecoder } from '../../../libs/pocketsphinx';
import { pcm16FromBuffer } from '../../platform/audio/resampler';
import type { EmbeddedEngineSettings, EngineLogger } from './engine-options';
import { Listener } from './input/listener';
import type { SileroVadModel } from '../listening/silero-vad';
import { personaReply } from './output/persona';
import { PreparedSynthesizer } from './output/prepared-synthesizer';
import { ResponsePlayer, Synthesizer } from './output/response-player';

export interface StreamResources {
  decoder: PocketsphinxDecoder;
  vad: SileroVadModel;
  synthesizer: Synthesizer;
  settings: EmbeddedEngineSettings;
  logger: EngineLogger | undefined;
  /** Called once, after the last event: gives the decoder and the capacity slot back. */
  release: () => void;
}

export class EmbeddedStream implements EngineStream {
  private readonly listener: Listener;
  private readonly player: ResponsePlayer | null;
  private readonly voice: PreparedSynthesizer;
  private closing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly config: EngineStreamConfig,
    private readonly sink: EngineEventSink,
    private readonly resources: StreamResources,
  ) {
    const { settings } = resources;
    this.voice = new PreparedSynthesizer(resources.synthesizer);
    this.listener = new Listener(
      resources.decoder,
      resources.vad,
      {
        turnDetection: config.turnDetection,
        defaultThreshold: settings.defaultVadThreshold,
        minSpeechMs: settings.minSpeechMs,
        splitPauseMs: settings.splitPauseMs,
        maxUtteranceMs: settings.maxUtteranceMs,
        asrLeadMs: settings.asrLeadMs,
        stableMs: settings.partialStableMs,
        settledMs: settings.partialSettledMs,
        maxBatchMs: settings.maxDecodeBatchMs,
        newItemId: () => newId('item'),
      },
      {
        emit: (event) => this.emit(event),
        speechStarted: () => this.player?.interrupt(),
        turnFinished: (_itemId, transcript) => this.answer(transcript),
        error: (error) => this.fail(error),
      },
    );
    this.player =
      config.type === 'live'
        ? new ResponsePlayer(
            this.voice,
            { sampleRate: 24_000, chunkMs: 80, leadMs: settings.outputLeadMs },
            (event) => this.emit(event),
            settings.clock,
          )
        : null;
  }

  pushAudio(frame: Buffer): void {
    if (this.closing) return;
    this.listener.pushAudio(pcm16FromBuffer(frame));
  }

  commit(): void {
    if (!this.closing) this.listener.commit();
  }

  clear(): void {
    if (!this.closing) this.listener.clear();
  }

  interrupt(): void {
    this.player?.interrupt();
  }

  /** Eager end of turn: the persona's answer is synthesised now and played if the turn ends so. */
  prepareResponse(transcript: string): void {
    if (this.player && !this.closing) this.voice.prepare(personaReply(transcript, this.resources.settings.now()));
  }

  discardPreparedResponse(): void {
    this.voice.discard();
  }

  /** Answers prepared on an eager end of turn, and how many of them were played. */
  get preparedAnswers(): { prepared: number; used: number } {
    return { prepared: this.voice.preparedCount, used: this.voice.usedCount };
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    try {
      await this.listener.flush();
    } finally {
      this.player?.interrupt();
      this.closed = true;
      this.resources.release();
    }
  }

  private answer(transcript: string): void {
    if (!this.player || this.closing) return;
    this.player.speak(newId('item'), personaReply(transcript, this.resources.settings.now()));
    this.voice.discard(); // a preparation the answer did not use is stale now
  }

  private fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.resources.logger?.error?.(`embedded engine stream ${this.config.sessionId}: ${message}`);
    this.emit({ type: 'error', code: 'engine_error', message });
  }

  /** The sink belongs to the session; its failure must not break this stream's pipeline. */
  private emit(event: EngineEvent): void {
    if (this.closed) return;
    try {
      this.sink(event);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.resources.logger?.error?.(`embedded engine stream ${this.config.sessionId}: event sink threw: ${message}`);
    }
  }
}
