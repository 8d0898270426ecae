import { WebSocket } from 'ws';
import type { TransportPort } from '../../../session-core';

/** The session core's view of a ws socket. */
export function wsTransport(ws: WebSocket): TransportPort {
  return {
    send: (frame) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(frame);
    },
    // 1008 is for a client that stopped reading: waiting for its close handshake would wait forever.
    close: (code, reason) => (code === 1008 ? ws.terminate() : ws.close(code, reason)),
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  };
}
