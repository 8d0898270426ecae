/**
 * The cascaded voice agent: `vendor-voicechat` served by three parts, each replaceable — a
 * listening engine (any SpeechEngine, opened as a transcription stream: the embedded engine or a
 * remote one) for turns and transcripts, an OpenAI-compatible chat completions server for the
 * answer, and an OpenAI-compatible speech server for the voice. Capacity is the listener's: each
 * session holds one of its streams; the chat and speech servers are shared HTTP endpoints. The
 * listener belongs to whoever made it (the engines registry starts and shuts it down).
 */
import { nodeTimers, type Timers } from '../../platform/clock/timers';
import type {
  ConversationCapabilities,
  EngineCapacity,
  EngineEventSink,
  EngineStream,
  EngineStreamConfig,
  SpeechEngine,
} from '../../session-core';
import { CascadeStream } from './cascade-stream';
import type { CascadeEngineOptions } from './cascade.options';
import { ChatClient } from './chat-client';
import { SpeechClient } from './speech-client';

/** Where the engine reports upstream failures (details the client is not shown); silent without one. */
export interface CascadeLogger {
  warn?(message: string): void;
  error?(message: string): void;
}

export interface CascadeEngineExtras {
  logger?: CascadeLogger;
  /** What the voice is paced on (the service's one clock); node's timers by default. */
  clock?: Timers;
}

export class CascadeEngine implements SpeechEngine {
  readonly name = 'cascade';
  readonly conversation: ConversationCapabilities = { responses: true, tools: true };
  private readonly chat: ChatClient;
  private readonly speech: SpeechClient;
  private readonly streams = new Set<CascadeStream>();
  private stopped = false;

  constructor(
    private readonly options: CascadeEngineOptions,
    private readonly listener: SpeechEngine,
    private readonly extras: CascadeEngineExtras = {},
  ) {
    this.chat = new ChatClient(options.chat);
    this.speech = new SpeechClient(options.speech);
  }

  capacity(): EngineCapacity {
    return this.listener.capacity();
  }

  hasCapacity(): boolean {
    return !this.stopped && this.listener.hasCapacity();
  }

  async open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream> {
    if (this.stopped) throw new Error('the speech engine is shut down');
    const logger = this.extras.logger;
    const stream: CascadeStream = new CascadeStream(config, sink, {
      chat: this.chat,
      speech: this.speech,
      systemPrompt: this.options.systemPrompt,
      historyMessages: this.options.historyMessages,
      maxSentenceChars: this.options.maxSentenceChars,
      voice: { leadMs: this.options.outputLeadMs, chunkMs: 80, clock: this.extras.clock ?? nodeTimers },
      warn: (message) => logger?.warn?.(`cascade stream ${config.sessionId}: ${message}`),
      error: (message) => logger?.error?.(message),
      release: () => this.streams.delete(stream),
    });
    // The listener hears the user only; the voice is ours.
    const listening = await this.listener.open({ ...config, type: 'transcription', voice: null }, stream.hear);
    stream.attach(listening);
    this.streams.add(stream);
    if (this.stopped) {
      await stream.close();
      throw new Error('the speech engine is shut down');
    }
    return stream;
  }

  /** Closes every stream (final transcripts are still delivered); the listener is its owner's to shut down. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.streams].map((stream) => stream.close()));
  }
}

/** The registration point: a cascade over `listener`, from validated options. */
export function createCascadeEngine(
  options: CascadeEngineOptions,
  listener: SpeechEngine,
  extras: CascadeEngineExtras = {},
): SpeechEngine {
  return new CascadeEngine(options, listener, extras);
}
