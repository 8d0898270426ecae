/** The session defaults: the models this service serves, and what a session runs when nobody says otherwise. */
import type { EndOfTurnSettings, TurnDetectionConfig } from '../../engines/contract';
import type { SessionConfig } from './session.types';

export const VOICECHAT = 'vendor-voicechat';
export const ASR_STREAMING = 'vendor-asr-streaming';
/** The one voice live sessions speak with. */
export const VOICE = 'aria';
export const VOICES = [VOICE] as const;
/** Every model this service serves; the engines document must name an engine for each. */
export const MODEL_IDS: readonly string[] = [VOICECHAT, ASR_STREAMING];

/** What a compatibility socket transcribes with when neither a client secret nor the client says otherwise. */
export const TRANSCRIPTION_MODEL = ASR_STREAMING;

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

export const DEFAULT_TRANSCRIPTION_CONFIG: SessionConfig = {
  type: 'transcription',
  model: TRANSCRIPTION_MODEL,
  voice: null,
  language: DEFAULT_LANGUAGE,
  turnDetection: DEFAULT_VAD,
  outputEncoding: 'base64',
};
