/** Engine settings a session may change before its first audio, and how a change is applied. */
import type { SessionConfig, SessionConfigChanges } from './session.types';

export function withChanges(config: SessionConfig, changes: SessionConfigChanges): SessionConfig {
  return {
    ...config,
    language: changes.language ?? config.language,
    turnDetection: changes.turnDetection === undefined ? config.turnDetection : changes.turnDetection,
  };
}

/** Whether two configurations ask the engine for the same thing (language and turn detection). */
export function sameEngineSettings(a: SessionConfig, b: SessionConfig): boolean {
  const x = a.turnDetection;
  const y = b.turnDetection;
  const sameTurns =
    x === y ||
    (x !== null &&
      y !== null &&
      x.threshold === y.threshold &&
      x.silenceDurationMs === y.silenceDurationMs &&
      x.prefixPaddingMs === y.prefixPaddingMs);
  return a.language === b.language && sameTurns;
}
