/** `@continuum/client/browser`: microphone capture, file input and playback for live sessions. */
import type { LiveSession } from '../live/live-session.js';
import type { PcmPlayer } from './player.js';

export * from './microphone.js';
export * from './player.js';
export * from './resampler.js';
export * from './wav-file.js';

/**
 * Plays a session's output audio and flushes it at once on barge-in: when the user starts speaking
 * while the answer plays (`speech_started`), or the server reports the answer cut.
 */
export function attachPlayback(session: LiveSession, player: PcmPlayer): () => void {
  const offAudio = session.onOutputAudio((pcm) => player.enqueue(pcm));
  const offTurn = session.on('session.turn.event', (e) => {
    const bargeIn = e.event.type === 'speech_started' && player.playing;
    const cut = e.event.type === 'response_done' && e.event.interrupted;
    if (bargeIn || cut) player.flush();
  });
  return () => {
    offAudio();
    offTurn();
  };
}
