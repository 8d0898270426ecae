/**
 * The engines of this instance, one per configured name, and which serves each model. It is itself
 * a SpeechEngine (the SPEECH_ENGINE the socket layer opens streams on): open() goes to the engine
 * of the stream's model, so sessions and dialects do not know engines are configurable.
 */
import { ConfigError } from '../../config/environment';
import { nodeTimers, type Timers } from '../../platform/clock/timers';
import type {
  EngineCapacity,
  EngineEventSink,
  EngineStream,
  EngineStreamConfig,
  SpeechEngine,
} from '../../session-core';
import type { CredentialRef } from './config-section';
import type { EngineLogger } from './engine-kind';
import type { EnginesDocument } from './engines-document';

export const ENGINE_REGISTRY = Symbol('ENGINE_REGISTRY');

export interface RegistryDependencies {
  credential(ref: CredentialRef): string | undefined;
  logger(engineName: string): EngineLogger;
  defaultMaxStreams: number;
  /** The process's one clock (the service's TickScheduler); node's timers when not given. */
  clock?: Timers;
  /** Wraps an engine that serves a model (metrics): sessions open streams through the wrapper. */
  serve?(engineName: string, engine: SpeechEngine): SpeechEngine;
}

export class EngineRegistry implements SpeechEngine {
  readonly name = 'registry';
  /** In creation order: an engine another one uses is created (and started) first. */
  private readonly created = new Map<string, SpeechEngine>();
  private readonly creating = new Set<string>();
  /** The engines models name, as sessions use them; a composite kind uses the bare engine it names. */
  private readonly serving = new Map<string, SpeechEngine>();

  constructor(
    private readonly document: EnginesDocument,
    private readonly deps: RegistryDependencies,
  ) {
    // Engines no model names are still created: a composite kind may use them, and a typo'd one
    // should fail at start rather than at the first session.
    for (const name of document.engines.keys()) this.engine(name);
    for (const name of new Set(document.models.values())) {
      const engine = this.engine(name);
      this.serving.set(name, deps.serve ? deps.serve(name, engine) : engine);
    }
  }

  /** The engine named `name` in the document, created on first use. */
  engine(name: string): SpeechEngine {
    const existing = this.created.get(name);
    if (existing) return existing;
    const entry = this.document.engines.get(name);
    if (!entry) throw new ConfigError(`Invalid configuration:\n  ${this.document.setting}: no engine named "${name}"`);
    if (this.creating.has(name))
      throw new ConfigError(
        `Invalid configuration:\n  ${this.document.setting} engines.${name}: engines use each other in a cycle`,
      );
    this.creating.add(name);
    try {
      const engine = entry.kind.create(entry.settings, {
        name,
        engine: (other) => this.engine(other),
        credential: (ref) => this.deps.credential(ref),
        logger: this.deps.logger(name),
        defaultMaxStreams: this.deps.defaultMaxStreams,
        clock: this.deps.clock ?? nodeTimers,
      });
      this.created.set(name, engine);
      return engine;
    } finally {
      this.creating.delete(name);
    }
  }

  engineFor(model: string): SpeechEngine {
    const name = this.document.models.get(model);
    const engine = name === undefined ? undefined : this.serving.get(name);
    if (engine === undefined) throw new Error(`no engine serves model ${model}`);
    return engine;
  }

  /** Languages the model's engine recognises (ISO-639-1). */
  languagesFor(model: string): readonly string[] {
    const name = this.document.models.get(model);
    const entry = name === undefined ? undefined : this.document.engines.get(name);
    return entry ? entry.kind.languages(entry.settings) : [];
  }

  capacityFor(model: string): EngineCapacity {
    return this.engineFor(model).capacity();
  }

  hasCapacityFor(model: string): boolean {
    return this.engineFor(model).hasCapacity();
  }

  open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream> {
    return this.engineFor(config.model).open(config, sink);
  }

  async start(): Promise<void> {
    for (const engine of this.created.values()) await engine.start?.();
  }

  /** Totals over distinct engines (an engine serving two models is counted once). */
  capacity(): EngineCapacity {
    let inUse = 0;
    let max = 0;
    for (const engine of this.created.values()) {
      const c = engine.capacity();
      inUse += c.inUse;
      max += c.max;
    }
    return { inUse, max };
  }

  /** Some model can take a stream (for callers that do not know the model yet). */
  hasCapacity(): boolean {
    return [...this.document.models.keys()].some((model) => this.hasCapacityFor(model));
  }

  /** Composite engines first, so none outlives the engine it listens through. */
  async shutdown(): Promise<void> {
    for (const engine of [...this.created.values()].reverse()) await engine.shutdown();
  }
}
