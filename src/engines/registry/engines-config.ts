import type { AppConfig } from '../../config/app-config';
import { ConfigError } from '../../config/environment';
import { ENGINE_KINDS } from './engine-kinds';
import { defaultDocument, EnginesDocument, parseEnginesSource, readEnginesDocument } from './engines-document';

/**
 * The validated engines document (ENGINES_FILE / ENGINES_JSON, or SPEECH_ENGINE's default of one
 * engine for every model); throws a ConfigError naming the setting. Pure: no engine is created.
 */
export function enginesDocument(config: AppConfig, modelIds: readonly string[]): EnginesDocument {
  if (config.engines)
    return readEnginesDocument(config.engines.setting, parseEnginesSource(config.engines), ENGINE_KINDS, modelIds);
  // SPEECH_ENGINE names a kind: the registered ones are the only list of them.
  if (!ENGINE_KINDS.some((kind) => kind.kind === config.speechEngine))
    throw new ConfigError(
      `Invalid configuration:\n  SPEECH_ENGINE=${JSON.stringify(config.speechEngine)}: SPEECH_ENGINE must be one of the following values: ${ENGINE_KINDS.map((kind) => kind.kind).join(', ')}`,
    );
  return readEnginesDocument(
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
