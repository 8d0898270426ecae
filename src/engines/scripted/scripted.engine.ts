/**
 * A deterministic SpeechEngine for protocol tests and benchmarks (no model, no native code):
 * see ScriptedStream for what it hears and says. Cheap enough for hundreds of sessions: a frame
 * costs one pass over half its samples, and the reply tone is made once per engine and shared.
 */
import {
  EngineCapacityError,
  type EngineCapacity,
  type EngineEventSink,
  type EngineStream,
  type EngineStreamConfig,
  type SpeechEngine,
} from '../../session-core';
import { makeTone } from './scripted.audio';
import { DEFAULT_SCRIPTED_OPTIONS, type ScriptedEngineOptions } from './scripted.options';
import { ScriptedStream } from './scripted.stream';

export type { ScriptedEngineOptions } from './scripted.options';

export class ScriptedEngine implements SpeechEngine {
  readonly name = 'scripted';
  readonly options: ScriptedEngineOptions;
  private readonly replyPcm: Buffer;
  private readonly streams = new Set<ScriptedStream>();

  constructor(options: Partial<ScriptedEngineOptions> = {}) {
    this.options = { ...DEFAULT_SCRIPTED_OPTIONS, ...options };
    const { toneHz, durationMs } = this.options.reply;
    this.replyPcm = makeTone(toneHz, durationMs, 0.25);
  }

  open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream> {
    if (!this.hasCapacity()) return Promise.reject(new EngineCapacityError(1000));
    const stream: ScriptedStream = new ScriptedStream(config, sink, this.options, this.replyPcm, () =>
      this.streams.delete(stream),
    );
    this.streams.add(stream);
    return Promise.resolve(stream);
  }

  capacity(): EngineCapacity {
    return { inUse: this.streams.size, max: this.options.maxStreams };
  }

  hasCapacity(): boolean {
    return this.streams.size < this.options.maxStreams;
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.streams].map((stream) => stream.close()));
  }
}
