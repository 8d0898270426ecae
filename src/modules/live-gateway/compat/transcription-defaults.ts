/** What a compatibility socket runs when neither a client secret nor the client says otherwise. */
import type { TurnDetectionConfig } from '../../../engines/engine.types';
import type { SessionConfig } from '../../../session-core';

export const TRANSCRIPTION_MODEL = 'vendor-asr-streaming';

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
