import type { SessionConfig } from '../model/session.types';

/** The plainest live session: the default model and voice, no turn detection, base64 audio. */
export const LIVE_CONFIG: SessionConfig = {
  type: 'live',
  model: 'vendor-voicechat',
  voice: 'aria',
  language: 'auto',
  turnDetection: null,
  outputEncoding: 'base64',
};
