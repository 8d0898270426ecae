import { Global, Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { CAPACITY_GATE, RegisteredCapacityGate } from '../modules/client-secrets/capacity-gate';
import { ClientSecretsModule } from '../modules/client-secrets/client-secrets.module';
import { MetricsService } from '../modules/metrics/metrics.service';
import { MODEL_IDS } from '../modules/models/model-catalog';
import { SPEECH_ENGINE } from './engine.types';
import { enginesDocument } from './engines-config';
import { instrumentEngine } from './instrumented-engine';
import { ENGINE_REGISTRY, EngineRegistry } from './registry/engine-registry';

/** How long a refused client is told to wait for a stream to free up. */
const CAPACITY_RETRY_MS = 2000;

/** Creates the engines of the document: a bad one stops the start. */
export function createRegistry(config: AppConfig, metrics?: MetricsService): EngineRegistry {
  return new EngineRegistry(enginesDocument(config, MODEL_IDS), {
    credential: (ref) => config.credential(ref),
    logger: (name) => new Logger(`Engine:${name}`),
    defaultMaxStreams: config.engineMaxStreams,
    serve: metrics ? (name, engine) => instrumentEngine(engine, metrics.sessions, name) : undefined,
  });
}

/** The instance's engines, one per configured name; each model's free streams gate its new sessions. */
@Global()
@Module({
  imports: [ClientSecretsModule],
  providers: [
    { provide: ENGINE_REGISTRY, inject: [AppConfig, MetricsService], useFactory: createRegistry },
    { provide: SPEECH_ENGINE, useExisting: ENGINE_REGISTRY },
  ],
  exports: [SPEECH_ENGINE, ENGINE_REGISTRY],
})
export class EnginesModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(ENGINE_REGISTRY) private readonly engines: EngineRegistry,
    @Inject(CAPACITY_GATE) private readonly gate: RegisteredCapacityGate,
  ) {}

  async onModuleInit(): Promise<void> {
    // The first session should not wait ~1 s for the recogniser's models.
    await this.engines.start();
    this.gate.register({
      check: (model) =>
        (model === undefined ? this.engines.hasCapacity() : this.engines.hasCapacityFor(model))
          ? { available: true }
          : { available: false, retryAfterMs: CAPACITY_RETRY_MS },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engines.shutdown();
  }
}
