/**
 * The engines document: which engine serves each model, and each engine's settings.
 *
 *   { "engines": { "asr": { "kind": "remote", … }, "local": { "kind": "embedded" } },
 *     "models":  { "vendor-asr-streaming": "asr", "vendor-voicechat": "local" } }
 *
 * Without one (no ENGINES_FILE / ENGINES_JSON) every model is served by one engine of kind
 * SPEECH_ENGINE with ENGINE_MAX_STREAMS streams, as before engines were configurable.
 */
import type { EnginesSource } from '../../config/app-config';
import { ConfigError } from '../../config/environment';
import { ConfigSection } from './config-section';
import type { EngineKind } from './engine-kind';

export interface EnginesDocument {
  readonly setting: string;
  /** model id → engine name */
  readonly models: ReadonlyMap<string, string>;
  /** engine name → its kind and its (validated) section */
  readonly engines: ReadonlyMap<string, { kind: EngineKind; settings: unknown }>;
}

const ENGINE_NAME = /^[a-z][a-z0-9_-]{0,62}$/;

export function defaultDocument(kind: string, maxStreams: number, modelIds: readonly string[]): unknown {
  // Named after its kind: the name labels the engine's metrics (`engine="embedded"`).
  return {
    engines: { [kind]: { kind, maxStreams } },
    models: Object.fromEntries(modelIds.map((id) => [id, kind])),
  };
}

export function parseEnginesSource(source: EnginesSource): unknown {
  try {
    return JSON.parse(source.text) as unknown;
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  ${source.setting}: not valid JSON (${(error as Error).message})`);
  }
}

/** Validates the whole document against the known kinds and models; throws ConfigError naming the setting. */
export function readEnginesDocument(
  setting: string,
  raw: unknown,
  kinds: readonly EngineKind[],
  modelIds: readonly string[],
): EnginesDocument {
  const root = ConfigSection.of(setting, '(document)', raw);
  root.allowOnly(['engines', 'models']);
  const enginesSection = ConfigSection.of(setting, 'engines', root.values.engines ?? null);
  const engines = new Map<string, { kind: EngineKind; settings: unknown }>();
  for (const name of Object.keys(enginesSection.values)) {
    if (!ENGINE_NAME.test(name))
      throw enginesSection.error(name, 'engine names are lowercase letters, digits, - and _');
    const section = enginesSection.section(name);
    const kindName = section.values.kind;
    const kind = kinds.find((k) => k.kind === kindName);
    if (!kind)
      throw section.error(
        'kind',
        `unknown engine kind ${JSON.stringify(kindName)} (known: ${kinds.map((k) => k.kind).join(', ')})`,
      );
    const { kind: _kind, ...rest } = section.values;
    engines.set(name, { kind, settings: kind.parse(new ConfigSection(setting, section.path, rest)) });
  }
  const modelsSection = ConfigSection.of(setting, 'models', root.values.models ?? null);
  const models = new Map<string, string>();
  for (const id of Object.keys(modelsSection.values)) {
    if (!modelIds.includes(id))
      throw modelsSection.error(id, `unknown model (this service serves ${modelIds.join(', ')})`);
    const name = modelsSection.values[id];
    if (typeof name !== 'string' || !engines.has(name))
      throw modelsSection.error(id, `names no engine of "engines" (got ${JSON.stringify(name)})`);
    models.set(id, name);
  }
  for (const id of modelIds) {
    if (!models.has(id)) throw modelsSection.error(id, 'model without engine: every model needs one');
  }
  return { setting, models, engines };
}
