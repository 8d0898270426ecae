/**
 * Builds the real app with a given SpeechEngine in place of the one EnginesModule would create
 * from configuration: the module graph AppModule.forRoot returns gets a copy of EnginesModule
 * (same lifecycle: start, capacity gate, shutdown) whose SPEECH_ENGINE is `engine`. For an engine
 * that configuration cannot build yet (a composite whose parts a test starts itself).
 */
import { Global, Module } from '@nestjs/common';
import { AppModule } from '../../src/app.module';
import type { SpeechEngine } from '../../src/engines/engine.types';
import { SPEECH_ENGINE } from '../../src/engines/engine.types';
import { EnginesModule } from '../../src/engines/engines.module';
import { ClientSecretsModule } from '../../src/modules/client-secrets/client-secrets.module';

/** Until the returned function is called, apps built by createApp/startTestApp run on `engine`. */
export function overrideSpeechEngine(engine: SpeechEngine): () => void {
  @Global()
  @Module({
    imports: [ClientSecretsModule],
    providers: [{ provide: SPEECH_ENGINE, useValue: engine }],
    exports: [SPEECH_ENGINE],
  })
  class GivenEngineModule extends EnginesModule {}

  const original = AppModule.forRoot.bind(AppModule);
  const spy = jest.spyOn(AppModule, 'forRoot').mockImplementation((config, database) => {
    const module = original(config, database);
    return { ...module, imports: module.imports?.map((m) => (m === EnginesModule ? GivenEngineModule : m)) };
  });
  return () => spy.mockRestore();
}
