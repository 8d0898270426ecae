import type { AppConfig } from '../../config/app-config';
import { ENGINE_KINDS } from './engine-kinds';
import { defaultDocument, EnginesDocument, parseEnginesSource, readEnginesDocument } from './engines-document';

/**
 * The validated engines document (ENGINES_FILE / ENGINES_JSON, or SPEECH_ENGINE's default of one
 * engine for every model); throws a ConfigError naming the setting. Pure: no engine is created.
 */
export function enginesDocument(config: AppConfig, modelIds: readonly string[]): EnginesDocument {
  return config.engines
    ? readEnginesDocument(config.engines.setting, parseEnginesSource(config.engines), ENGINE_KINDS, modelIds)
    : readEnginesDocument(
        'SPEECH_ENGINE',
        defaultDocument(config.speechEngine, config.engineMaxStreams, modelIds),
        ENGINE_KINDS,
        modelIds,
      );
}

/** Languages each model's engine recognises, as its kind declares them. */
export function modelLanguages(document: EnginesDocument, model: string): readonly string[] {
  const name = document.models.get(model);
  const entry = name === undefined ? undefined : document.engines.get(name);
  return entry ? entry.kind.languages(entry.settings) : [];
}
