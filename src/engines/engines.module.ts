import { Global, Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ClockModule } from '../platform/clock/clock.module';
import { TickScheduler } from '../platform/clock/tick-scheduler';
import type { Timers } from '../platform/clock/timers';
import { MODEL_IDS } from './registry/served-models';
import { CAPACITY_GATE, type CapacityGate } from './capacity-gate';
import { SPEECH_ENGINE } from '../session-core';
import { enginesDocument } from './registry/engines-config';
import { ENGINE_METERS, instrumentEngine, type EngineMeters } from './registry/instrumented-engine';
import { ENGINE_REGISTRY, EngineRegistry } from './registry/engine-registry';

/** How long a refused client is told to wait for a stream to free up. */
const CAPACITY_RETRY_MS = 2000;

/** Creates the engines of the document: a bad one stops the start. */
export function createRegistry(config: AppConfig, meters?: EngineMeters, clock?: Timers): EngineRegistry {
  return new EngineRegistry(enginesDocument(config, MODEL_IDS), {
    credential: (ref) => config.credential(ref),
    logger: (name) => new Logger(`Engine:${name}`),
    defaultMaxStreams: config.engineMaxStreams,
    clock,
    serve: meters ? (name, engine) => instrumentEngine(engine, meters, name) : undefined,
  });
}

/** A model's free streams gate its new sessions; without a model, any engine's. */
function capacityGate(engines: EngineRegistry): CapacityGate {
  return {
    check: (model) =>
      (model === undefined ? engines.hasCapacity() : engines.hasCapacityFor(model))
        ? { available: true }
        : { available: false, retryAfterMs: CAPACITY_RETRY_MS },
  };
}

/**
 * The instance's engines, one per configured name. Metered when a module provides ENGINE_METERS
 * (the metrics module does), so engines never import a feature module.
 */
// Global: the engines back the model catalog every feature module imports, as well as client secrets and sockets.
@Global()
@Module({
  imports: [ClockModule],
  providers: [
    {
      provide: ENGINE_REGISTRY,
      inject: [AppConfig, { token: ENGINE_METERS, optional: true }, TickScheduler],
      useFactory: createRegistry,
    },
    { provide: SPEECH_ENGINE, useExisting: ENGINE_REGISTRY },
    { provide: CAPACITY_GATE, inject: [ENGINE_REGISTRY], useFactory: capacityGate },
  ],
  exports: [SPEECH_ENGINE, ENGINE_REGISTRY, CAPACITY_GATE],
})
export class EnginesModule implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(ENGINE_REGISTRY) private readonly engines: EngineRegistry) {}

  async onModuleInit(): Promise<void> {
    // The first session should not wait ~1 s for the recogniser's models.
    await this.engines.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engines.shutdown();
  }
}
