import type { LiveSession } from '../live/live-session.js';

/** What `attachPlayback` needs of a player (`PcmPlayer` is one). */
export interface PlaybackSink {
  readonly playing: boolean;
  enqueue(pcm: Int16Array): void;
  flush(): void;
}

/**
 * Plays a session's output audio and flushes it at once on barge-in: when the user starts speaking
 * while the answer plays (`speech_started`), or the server reports the answer cut.
 */
export function attachPlayback(session: LiveSession, player: PlaybackSink): () => void {
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
