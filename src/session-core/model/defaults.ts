/** The session defaults: the models this service serves, and what a session runs when nobody says otherwise. */
import type { TurnDetectionConfig } from '../../engines/contract';
import type { SessionConfig } from './session.types';

export const VOICECHAT = 'vendor-voicechat';
export const ASR_STREAMING = 'vendor-asr-streaming';
export const VOICES = ['aria'] as const;
/** Every model this service serves; the engines document must name an engine for each. */
export const MODEL_IDS: readonly string[] = [VOICECHAT, ASR_STREAMING];

/** What a compatibility socket transcribes with when neither a client secret nor the client says otherwise. */
export const TRANSCRIPTION_MODEL = ASR_STREAMING;

/** OpenAI's server_vad defaults, as the client-secret endpoints resolve them. */
export const DEFAULT_VAD: TurnDetectionConfig = {
  type: 'server_vad',
  threshold: 0.5,
  silenceDurationMs: 500,
  prefixPaddingMs: 300,
};

export const DEFAULT_TRANSCRIPTION_CONFIG: SessionConfig = {
  type: 'transcription',
  model: TRANSCRIPTION_MODEL,
  voice: null,
  language: 'auto',
  turnDetection: DEFAULT_VAD,
  outputEncoding: 'base64',
};
