/**
 * The session defaults: what a session runs when nobody says otherwise. The models this service serves are the
 * engines' (src/engines/registry/served-models.ts): the core carries a session's model as a string.
 */
import type { EndOfTurnSettings, TurnDetectionConfig } from '../engine/engine.port';

/** The one voice live sessions speak with. */
export const VOICE = 'aria';
export const VOICES = [VOICE] as const;

/** `auto`: detect the language. */
export const DEFAULT_LANGUAGE = 'auto';

/** OpenAI's server_vad defaults, so that clients written for it behave the same here. */
export const DEFAULT_VAD: TurnDetectionConfig = {
  type: 'server_vad',
  threshold: 0.5,
  silenceDurationMs: 500,
  prefixPaddingMs: 300,
};

/** Live sessions end turns on the end-of-turn confidence, eagerly preparing answers (docs/api.md). */
export const DEFAULT_END_OF_TURN: EndOfTurnSettings = {
  eotThreshold: 0.7,
  eagerEotThreshold: 0.4,
  eotTimeoutMs: 5000,
};
