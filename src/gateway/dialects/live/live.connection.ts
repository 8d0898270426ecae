/**
 * One live socket, transport-independent: the gateway creates it after the handshake and feeds
 * it the socket's frames and its end. It owns the session runtime with the live renderer.
 */
import type { SessionRuntimeOptions } from '../../../session-core';
import { SessionRuntime } from '../../../session-core';
import type { SessionConfig } from '../../../session-core';
import { DEFAULT_MAX_MESSAGE_BYTES, parseLiveFrame, type LiveFrame, type LiveParseContext } from './live.protocol';
import { LiveRenderer } from './live.render';

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

  /** ws: `socket.on('close', () => connection.onClose())`; a no-op after the server closed it. */
  onClose(): void {
    this.runtime.transportClosed();
  }
}
