/**
 * The cascaded voice agent as a configurable engine kind for the engines registry:
 *
 *   "voicechat": { "kind": "cascade", "listener": "asr", "languages": ["en"],
 *                  "chat":   { "url": "http://llama:8080/v1", "model": "llama-3.2-3b-instruct",
 *                              "apiKey": { "env": "CHAT_API_KEY" } },
 *                  "speech": { "url": "http://kokoro:8880/v1", "model": "kokoro", "voice": "af_heart" } }
 *
 * `listener` names another engine of the document (embedded, remote…) that hears the user. The
 * types below are the registry's (src/engines/registry/engine-kind.ts), written structurally so
 * this folder stands on its own; listing `cascadeKind` in src/engines/engine-kinds.ts registers it.
 */
import type { Timers } from '../../platform/clock/timers';
import type { SpeechEngine } from '../../session-core';
import { createCascadeEngine } from './cascade.engine';
import {
  CascadeConfigError,
  cascadeEngineOptions,
  parseCascadeSettings,
  type CascadeSettings,
  type CredentialRef,
} from './cascade.options';

/** The part of the registry's ConfigSection this kind uses. */
interface SectionLike {
  readonly values: Readonly<Record<string, unknown>>;
  error(key: string | null, message: string): Error;
}

interface KindContext {
  readonly name: string;
  engine(name: string): SpeechEngine;
  credential(ref: CredentialRef): string | undefined;
  readonly logger: { warn(message: string): void; error(message: string): void };
  readonly clock?: Timers;
}

export interface CascadeKindSettings extends CascadeSettings {
  listener: string;
  languages: string[];
}

export const cascadeKind = {
  kind: 'cascade',
  parse(section: SectionLike): CascadeKindSettings {
    const { listener, languages, ...rest } = section.values;
    if (typeof listener !== 'string' || listener.trim() === '')
      throw section.error('listener', 'must name the engine that hears the user (e.g. "asr")');
    const tags = languages ?? ['en'];
    if (!Array.isArray(tags) || tags.length === 0 || tags.some((t) => typeof t !== 'string' || t.trim() === ''))
      throw section.error('languages', 'must be a list of language tags (those its listener recognises)');
    try {
      return {
        ...parseCascadeSettings(rest),
        listener,
        languages: (tags as string[]).map((t) => t.toLowerCase()),
      };
    } catch (error) {
      if (error instanceof CascadeConfigError)
        throw section.error(error.key === '(section)' ? null : error.key, error.problem);
      throw error;
    }
  },
  // What the listener hears; the chat model and the voice should speak the same languages.
  languages: (settings: CascadeKindSettings): readonly string[] => settings.languages,
  create(settings: CascadeKindSettings, context: KindContext): SpeechEngine {
    let options;
    try {
      options = cascadeEngineOptions(settings, (ref) => context.credential(ref));
    } catch (error) {
      if (error instanceof CascadeConfigError) throw new Error(`engine ${context.name}: ${error.key} ${error.problem}`);
      throw error;
    }
    return createCascadeEngine(options, context.engine(settings.listener), {
      logger: context.logger,
      clock: context.clock,
    });
  },
};
