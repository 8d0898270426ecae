import { WebSocket } from 'ws';
import type { TransportPort } from '../../session-core/index';

/** The session core's view of a ws socket. */
export function wsTransport(ws: WebSocket): TransportPort {
  return {
    send: (frame) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(frame);
    },
    // A client that stopped reading would never answer a close handshake: waiting for it would wait forever.
    close: (code, reason) => (reason === 'client_not_reading' ? ws.terminate() : ws.close(code, reason)),
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  };
}
