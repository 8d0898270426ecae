/** `@continuum/client/browser`: microphone capture, file input and playback for live sessions. */
export * from './microphone.js';
export * from './playback.js';
export * from './player.js';
export * from './resampler.js';
export * from './wav-file.js';
