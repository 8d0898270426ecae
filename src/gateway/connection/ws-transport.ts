import { WebSocket } from 'ws';
import type { TransportPort } from '../../session-core/index';

/** What ws writes a socket's frames to (its `_socket`): only cork/uncork are used here. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

/**
 * The session core's view of a ws socket.
 *
 * Frames sent in one call chain leave in one write: the first send corks the socket and the chain's
 * end (process.nextTick) uncorks it, so the frames a chain sends (the end of a turn: speech_stopped,
 * the transcript, response_started and the first two audio frames; a pacer's frame and the words it
 * releases) go to the kernel as one writev instead of one each. ws writes every frame as header +
 * payload under its own cork; that nests inside this one. Frames, their order and content are as
 * before; only the syscalls are fewer. A chain run by the clock's turn is flushed when the turn ends
 * (the turn runs for at most its budget, mostly well under a millisecond).
 */
export function wsTransport(ws: WebSocket): TransportPort {
  const socket = (ws as unknown as { _socket?: Corkable | null })._socket ?? null;
  let corked = false;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    socket!.uncork();
  };
  return {
    send: (frame) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (!corked && socket !== null) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      ws.send(frame);
    },
    // A client that stopped reading would never answer a close handshake: waiting for it would wait forever.
    // What this chain sent goes first, as it did before frames were corked.
    close: (code, reason) => {
      uncork();
      return reason === 'client_not_reading' ? ws.terminate() : ws.close(code, reason);
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  };
}
