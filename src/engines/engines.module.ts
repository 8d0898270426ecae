import { Global, Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { CAPACITY_GATE, RegisteredCapacityGate } from '../modules/client-secrets/capacity-gate';
import { ClientSecretsModule } from '../modules/client-secrets/client-secrets.module';
import { EmbeddedSpeechEngine } from './embedded/embedded-speech.engine';
import { SPEECH_ENGINE, SpeechEngine } from './engine.types';
import { ScriptedEngine } from './scripted/scripted.engine';
import { instrumentEngine } from './instrumented-engine';
import { MetricsService } from '../modules/metrics/metrics.service';

/** How long a refused client is told to wait for a stream to free up. */
const CAPACITY_RETRY_MS = 2000;

function createEngine(config: AppConfig): SpeechEngine {
  if (config.speechEngine === 'scripted') return new ScriptedEngine({ maxStreams: config.engineMaxStreams });
  const logger = new Logger('EmbeddedEngine');
  return new EmbeddedSpeechEngine({
    maxStreams: config.engineMaxStreams,
    retryAfterMs: CAPACITY_RETRY_MS,
    logger: { warn: (m) => logger.warn(m), error: (m) => logger.error(m) },
  });
}

/** The instance's speech engine: chosen by SPEECH_ENGINE, its free streams gate new sessions. */
@Global()
@Module({
  imports: [ClientSecretsModule],
  providers: [
    {
      provide: SPEECH_ENGINE,
      inject: [AppConfig, MetricsService],
      useFactory: (config: AppConfig, metrics: MetricsService) =>
        instrumentEngine(createEngine(config), metrics.sessions),
    },
  ],
  exports: [SPEECH_ENGINE],
})
export class EnginesModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(SPEECH_ENGINE) private readonly engine: SpeechEngine,
    @Inject(CAPACITY_GATE) private readonly gate: RegisteredCapacityGate,
  ) {}

  async onModuleInit(): Promise<void> {
    // The first session should not wait ~1 s for the recogniser's models.
    await this.engine.start?.();
    this.gate.register({
      check: () =>
        this.engine.hasCapacity() ? { available: true } : { available: false, retryAfterMs: CAPACITY_RETRY_MS },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engine.shutdown();
  }
}
