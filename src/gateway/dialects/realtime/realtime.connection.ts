/**
 * One `/v1/realtime` socket, transport-independent. Realtime has no start event: the session starts
 * on connect with the configuration the handshake resolved (the client secret's, or the defaults),
 * and its `started` is rendered as `session.created`, the first event. A `session.update` can
 * still change language and turn detection until the first audio (the core reopens the engine
 * stream); afterwards such a change is refused with `session_config_locked`.
 */
import type { SessionRuntimeOptions } from '../../../session-core';
import { SessionRuntime } from '../../../session-core';
import type { SessionConfig } from '../../../session-core';
import {
  parseRealtimeFrame,
  REALTIME_MAX_MESSAGE_BYTES,
  type RealtimeFrame,
  type RealtimeParseContext,
} from './realtime.protocol';
import { RealtimeRenderer } from './realtime.render';
import { AppError } from '../../../platform/errors/app-error';
import type { SessionCommand } from '../../../session-core';
import { reject } from '../../connection/client-frames';
import { isClientsOwnClose } from '../../connection/client-close';
import { WireAudio } from '../../../platform/audio/audio-format';

export interface RealtimeConnectionOptions extends Omit<SessionRuntimeOptions, 'renderer'> {
  readonly config: SessionConfig;
  readonly maxMessageBytes?: number;
  /** Throws an AppError for a language the session's model does not recognise. */
  readonly checkLanguage?: (language: string, param: string) => void;
}

export class RealtimeConnection {
  readonly runtime: SessionRuntime;
  private readonly context: RealtimeParseContext;
  private readonly checkLanguage: ((language: string, param: string) => void) | undefined;
  /** The client's audio format → the session's pcm16 24 kHz. */
  private readonly wire: WireAudio;

  constructor(options: RealtimeConnectionOptions) {
    const { config, maxMessageBytes, checkLanguage, ...runtimeOptions } = options;
    this.checkLanguage = checkLanguage;
    this.context = { maxMessageBytes: maxMessageBytes ?? REALTIME_MAX_MESSAGE_BYTES };
    this.wire = new WireAudio(config.audioFormats);
    this.runtime = new SessionRuntime({ ...runtimeOptions, renderer: new RealtimeRenderer(options.sessionId) });
    this.runtime.handle({ type: 'start', config, implicit: true });
  }

  /** ws: `socket.on('message', (data, isBinary) => connection.onMessage(data, isBinary))`. */
  onMessage(frame: RealtimeFrame, isBinary: boolean): void {
    const command = this.languageChecked(parseRealtimeFrame(frame, isBinary, this.context));
    if (command.type === 'append') return this.runtime.handle({ ...command, audio: this.wire.input(command.audio) });
    // The appends that follow an update are in its format, whenever the session core answers it.
    if (command.type === 'update' && command.changes?.audioFormats) this.wire.set(command.changes.audioFormats);
    this.runtime.handle(command);
  }

  /** A session.update to a language the model does not recognise is refused like any invalid value. */
  private languageChecked(command: SessionCommand): SessionCommand {
    const language = command.type === 'update' ? command.changes?.language : undefined;
    if (command.type !== 'update' || language === undefined || this.checkLanguage === undefined) return command;
    const param = 'session.audio.input.transcription.language';
    try {
      this.checkLanguage(language, param);
      return command;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return reject(error.code, error.message, param, command.clientEventId);
    }
  }

  /** A client's close handshake (the SDK's 1000, a bare `close()`'s 1005) ends the session as requested. */
  onClose(code: number): void {
    if (isClientsOwnClose(code)) this.runtime.clientClosed();
    else this.runtime.transportClosed();
  }
}
