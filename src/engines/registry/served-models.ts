/**
 * The models this service serves. The engines own them: the engines document must name an engine for each
 * (registry/engines-document.ts), and the catalog, the handshakes and the dialects read them from here.
 */
import { DEFAULT_LANGUAGE, DEFAULT_VAD, type SessionConfig } from '../../session-core';

export const VOICECHAT = 'vendor-voicechat';
export const ASR_STREAMING = 'vendor-asr-streaming';

/** Every model this service serves; the engines document must name an engine for each. */
export const MODEL_IDS: readonly string[] = [VOICECHAT, ASR_STREAMING];

/** What a compatibility socket transcribes with when neither a client secret nor the client says otherwise. */
export const TRANSCRIPTION_MODEL = ASR_STREAMING;

/** The session a compatibility socket transcribes in when neither a client secret nor the client says otherwise. */
export const DEFAULT_TRANSCRIPTION_CONFIG: SessionConfig = {
  type: 'transcription',
  model: TRANSCRIPTION_MODEL,
  voice: null,
  language: DEFAULT_LANGUAGE,
  turnDetection: DEFAULT_VAD,
  outputEncoding: 'base64',
};
