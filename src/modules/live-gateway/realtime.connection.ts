/**
 * One `/v1/realtime` socket, transport-independent. Realtime has no start event: the session starts
 * on connect with the configuration the handshake resolved (the client secret's, or the defaults),
 * and its `started` is rendered as `session.created`, the first event. A `session.update` can
 * still change language and turn detection until the first audio (the core reopens the engine
 * stream); afterwards such a change is refused with `session_config_locked`.
 */
import type { SessionRuntimeOptions } from '../../session-core/runtime-options';
import { SessionRuntime } from '../../session-core/session.runtime';
import type { SessionConfig } from '../../session-core/session.types';
import {
  parseRealtimeFrame,
  REALTIME_MAX_MESSAGE_BYTES,
  type RealtimeFrame,
  type RealtimeParseContext,
} from './realtime.protocol';
import { RealtimeRenderer } from './realtime.render';

export interface RealtimeConnectionOptions extends Omit<SessionRuntimeOptions, 'renderer'> {
  readonly config: SessionConfig;
  readonly maxMessageBytes?: number;
}

export class RealtimeConnection {
  readonly runtime: SessionRuntime;
  private readonly context: RealtimeParseContext;

  constructor(options: RealtimeConnectionOptions) {
    const { config, maxMessageBytes, ...runtimeOptions } = options;
    this.context = { maxMessageBytes: maxMessageBytes ?? REALTIME_MAX_MESSAGE_BYTES };
    this.runtime = new SessionRuntime({ ...runtimeOptions, renderer: new RealtimeRenderer(options.sessionId) });
    this.runtime.handle({ type: 'start', config, implicit: true });
  }

  /** ws: `socket.on('message', (data, isBinary) => connection.onMessage(data, isBinary))`. */
  onMessage(frame: RealtimeFrame, isBinary: boolean): void {
    this.runtime.handle(parseRealtimeFrame(frame, isBinary, this.context));
  }

  /** A client's close with 1000 (what the SDK's close() sends) ends the session as requested. */
  onClose(code: number): void {
    if (code === 1000) this.runtime.clientClosed();
    else this.runtime.transportClosed();
  }
}
