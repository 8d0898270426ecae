/**
 * What a kind of engine gives the registry. A kind lives in its own folder (`src/engines/<kind>/`),
 * exports one EngineKind, and is listed once in `src/engines/registry/engine-kinds.ts`.
 */
import type { Timers } from '../../platform/clock/timers';
import type { SpeechEngine } from '../../session-core';
import type { ConfigSection, CredentialRef } from './config-section';

export interface EngineLogger {
  warn(message: string): void;
  error(message: string): void;
  log(message: string): void;
}

/** What create() may use besides its own settings. */
export interface EngineKindContext {
  /** The engine's name in the document (`engines.<name>`). */
  readonly name: string;
  /**
   * Another configured engine, created on first request (a composite kind, e.g. a cascaded agent
   * that listens through a remote transcription engine). Cycles are refused at start.
   */
  engine(name: string): SpeechEngine;
  /** Resolves an upstream credential; never log or return what it gives. */
  credential(ref: CredentialRef): string | undefined;
  readonly logger: EngineLogger;
  /** ENGINE_MAX_STREAMS: the default stream limit of a kind that has one. */
  readonly defaultMaxStreams: number;
  /** The process's one clock: an engine paces its replies on it, not on timers of its own. */
  readonly clock: Timers;
}

export interface EngineKind<Settings = unknown> {
  /** The value of `kind` in the document. */
  readonly kind: string;
  /** Validates the engine's section; throws a ConfigError naming the setting (see ConfigSection). */
  parse(section: ConfigSection): Settings;
  /** Language tags (ISO-639-1) the engine recognises; `/v1/models` shows them and sessions are held to them. */
  languages(settings: Settings): readonly string[];
  create(settings: Settings, context: EngineKindContext): SpeechEngine;
}

/** Helps a kind keep its Settings type while being listed with others. */
export function engineKind<Settings>(kind: EngineKind<Settings>): EngineKind<unknown> {
  return kind as EngineKind<unknown>;
}
