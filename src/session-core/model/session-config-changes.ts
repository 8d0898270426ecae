/** Engine settings a session may change before its first audio, and how a change is applied. */
import type { EndOfTurnSettings } from '../engine/engine.port';
import type { SessionConfig, SessionConfigChanges, SessionDescriptor } from './session.types';

export function withChanges(config: SessionConfig, changes: SessionConfigChanges): SessionConfig {
  return {
    ...config,
    language: changes.language ?? config.language,
    turnDetection: changes.turnDetection === undefined ? config.turnDetection : changes.turnDetection,
    ...sessionOnlyChanges(config, changes),
  };
}

/** What a change does that is not the engine's (allowed after audio too). */
export function withSessionChanges(config: SessionConfig, changes: SessionConfigChanges | undefined) {
  return changes === undefined ? config : { ...config, ...sessionOnlyChanges(config, changes) };
}

function sessionOnlyChanges(config: SessionConfig, changes: SessionConfigChanges): Partial<SessionConfig> {
  const interruptResponse = changes.interruptResponse ?? config.interruptResponse;
  const audioFormats = changes.audioFormats ?? config.audioFormats;
  return {
    ...(interruptResponse === undefined ? {} : { interruptResponse }),
    ...(audioFormats === undefined ? {} : { audioFormats }),
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
      x.prefixPaddingMs === y.prefixPaddingMs &&
      JSON.stringify(x.endOfTurn ?? null) === JSON.stringify(y.endOfTurn ?? null));
  return a.language === b.language && sameTurns;
}

/** New end-of-turn thresholds, for a session that already decides its turns (others are unchanged). */
export function withTurnSettings(session: SessionDescriptor, settings: EndOfTurnSettings): SessionDescriptor {
  const detection = session.config.turnDetection;
  if (!detection?.endOfTurn) return session;
  return { ...session, config: { ...session.config, turnDetection: { ...detection, endOfTurn: settings } } };
}
