/**
 * A transcription engine whose recognition runs on remote workers (vLLM Realtime, or another
 * Continuum instance's realtime socket): this instance keeps turn detection (VAD), metering and
 * the session; each stream holds one socket to one worker of the pool.
 */
import { SharedVadModel } from '../listening/silero-vad';
import {
  EngineCapacity,
  EngineCapacityError,
  EngineEventSink,
  EngineStream,
  EngineStreamConfig,
  SpeechEngine,
} from '../../session-core';
import type { EngineLogger } from '../registry/engine-kind';
import { FileUpstream } from './file-upstream';
import { OpenAiRealtimeProtocol } from './protocols/openai-realtime.protocol';
import { VllmRealtimeProtocol } from './protocols/vllm-realtime.protocol';
import type { WorkerProtocol } from './protocols/worker-protocol';
import type { RemoteSettings } from './remote-settings';
import { RemoteStream } from './remote-stream';
import { WorkerPool } from './worker-pool';

export class RemoteSpeechEngine implements SpeechEngine {
  readonly name = 'remote';
  readonly pool: WorkerPool;
  readonly files?: FileUpstream;
  private readonly streams = new Set<RemoteStream>();
  private opening = 0;
  private readonly vad = new SharedVadModel();
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly settings: RemoteSettings,
    private readonly apiKey: () => string | undefined,
    private readonly logger: EngineLogger,
    filesApiKey: () => string | undefined = () => undefined,
  ) {
    this.pool = new WorkerPool(settings, logger);
    if (settings.files) this.files = new FileUpstream(settings.files, filesApiKey, logger);
  }

  /** Probes the workers and loads the VAD, so the first session waits for neither. */
  async start(): Promise<void> {
    await Promise.all([this.pool.start(), this.vad.load()]);
    const every = Math.max(25, Math.min(1000, Math.floor(this.settings.stallTimeoutMs / 4)));
    this.sweeper = setInterval(() => this.sweep(), every).unref();
  }

  capacity(): EngineCapacity {
    return this.pool.capacity();
  }

  hasCapacity(): boolean {
    return !this.stopped && this.pool.hasCapacity();
  }

  async open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream> {
    if (this.stopped) throw new Error('the speech engine is shut down');
    if (config.type !== 'transcription')
      throw new Error('a remote engine transcribes only: configure it for a transcription model');
    const vad = config.turnDetection === null ? null : await this.vad.load();
    this.opening++;
    try {
      const stream = await RemoteStream.open(config, sink, {
        settings: this.settings,
        pool: this.pool,
        protocol: this.protocolFor(config.language),
        apiKey: this.apiKey(),
        vad,
        logger: this.logger,
        release: (s) => this.streams.delete(s),
      });
      if (stream === null) throw new EngineCapacityError(this.retryAfterMs());
      this.streams.add(stream);
      return stream;
    } finally {
      this.opening--;
    }
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.streams].map((s) => s.close()));
    if (this.sweeper) clearInterval(this.sweeper);
    this.pool.stop();
    await this.vad.release();
  }

  private sweep(): void {
    const now = Date.now();
    for (const stream of this.streams) stream.checkStall(now);
  }

  /** Until the first worker is due to be retried, or the minimum backoff. */
  private retryAfterMs(): number {
    const now = Date.now();
    const due = this.pool.all.filter((w) => !w.healthy).map((w) => w.retryAt - now);
    return Math.max(this.settings.backoffMinMs, Math.min(this.settings.backoffMaxMs, ...due));
  }

  private protocolFor(language: string): WorkerProtocol {
    const { protocol, model, sampleRate } = this.settings;
    return protocol === 'vllm-realtime'
      ? new VllmRealtimeProtocol(model)
      : new OpenAiRealtimeProtocol(model, sampleRate, language);
  }
}
