/**
 * One live socket, transport-independent: the gateway creates it after the handshake and feeds
 * it the socket's frames and its end. It owns the session runtime with the live renderer.
 */
import type { SessionRuntimeOptions } from '../../../session-core';
import { SessionRuntime } from '../../../session-core';
import type { SessionConfig } from '../../../session-core';
import { DEFAULT_MAX_MESSAGE_BYTES, parseLiveFrame, type LiveFrame, type LiveParseContext } from './live.protocol';
import { LiveRenderer } from './live.render';
import { isClientsOwnClose } from '../../connection/client-close';

export interface LiveConnectionOptions extends Omit<SessionRuntimeOptions, 'renderer'> {
  /** The client secret's session configuration, or null for an API-key connection. */
  readonly lock: SessionConfig | null;
  readonly maxMessageBytes?: number;
}

export class LiveConnection {
  readonly runtime: SessionRuntime;
  private readonly context: LiveParseContext;

  constructor(options: LiveConnectionOptions) {
    const { lock, maxMessageBytes, ...runtimeOptions } = options;
    this.context = { lock, maxMessageBytes: maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES };
    this.runtime = new SessionRuntime({ ...runtimeOptions, renderer: new LiveRenderer() });
  }

  /** ws: `socket.on('message', (data, isBinary) => connection.onMessage(data, isBinary))`. */
  onMessage(frame: LiveFrame, isBinary: boolean): void {
    this.runtime.handle(parseLiveFrame(frame, isBinary, this.context));
  }

  /**
   * ws: `socket.on('close', (code) => connection.onClose(code))`; a no-op after the server closed it.
   * A close handshake after the start is the client's end, as `session.close` is (the SDK's
   * `close()` sends 1000 without one); before any start there is no session to end as asked.
   */
  onClose(code: number): void {
    if (isClientsOwnClose(code) && this.runtime.phase !== 'awaiting_start') this.runtime.clientClosed();
    else this.runtime.transportClosed();
  }
}
