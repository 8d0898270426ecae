/**
 * The socket a carrier's call presents to its session's dialect connection, in process. A phone call
 * is a Realtime conversation whose client is the bridge, not a WebSocket of its own: the bridge
 * writes client events into it and reads the session's server events out of it, and everything the
 * sockets share (admission, limits, metering, keep-alive, drain, DELETE) applies to the call as it
 * does to any socket. Only what `SocketWiring`, `wsTransport` and `SocketKeepAlive` use of a ws
 * socket is implemented.
 */
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';

const OPEN = 1;
const CLOSED = 3;

export interface SessionSocketPeer {
  /** A server event (a JSON text frame) the session sent. */
  onServerFrame(frame: string): void;
  /** The session closed its socket (its end, a DELETE, the drain, expiry). */
  onServerClose(code: number, reason: string): void;
  /** What the carrier's socket still has to write: the session's back-pressure reads it. */
  readonly bufferedAmount: number;
}

export class SessionSocket extends EventEmitter {
  readonly OPEN = OPEN;
  readyState = OPEN;

  constructor(private readonly peer: SessionSocketPeer) {
    super();
  }

  /** As a ws socket: what the session writes. */
  send(frame: string | Buffer): void {
    if (this.readyState === OPEN) this.peer.onServerFrame(typeof frame === 'string' ? frame : frame.toString('utf8'));
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState !== OPEN) return;
    this.readyState = CLOSED;
    this.peer.onServerClose(code, reason);
    this.emit('close', code, Buffer.from(reason));
  }

  terminate(): void {
    this.close(1006, '');
  }

  /** The call's liveness is its carrier socket's (the bridge watches it), not this one's. */
  ping(): void {
    queueMicrotask(() => this.emit('pong'));
  }

  get bufferedAmount(): number {
    return this.peer.bufferedAmount;
  }

  /** A client event from the bridge, as a text frame. */
  clientSend(event: string): void {
    if (this.readyState === OPEN) this.emit('message', event, false);
  }

  /** The call's end as the client's: 1000 (the carrier's stop) or 1006 (the stream dropped). */
  clientClose(code: number): void {
    if (this.readyState !== OPEN) return;
    this.readyState = CLOSED;
    this.emit('close', code, Buffer.alloc(0));
  }

  asWebSocket(): WebSocket {
    return this as unknown as WebSocket;
  }
}
