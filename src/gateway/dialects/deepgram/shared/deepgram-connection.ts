/**
 * What a Deepgram socket's connection is, whichever API it speaks (`/v1/listen`, `/v2/listen`): its
 * session starts on connect with what the query asked for; its audio, pcm16 at the client's rate,
 * is resampled to 24 kHz on the way in; it ends when the client sends no frame at all for `idleMs`
 * (`idle`; a KeepAlive counts, unlike the session core's own rule, which wants audio); a client's
 * close handshake is its end of the stream, a socket gone without one a dropped connection.
 */
import {
  IdleWatch,
  SessionRuntime,
  systemClock,
  type EventRenderer,
  type SessionConfig,
  type SessionRuntimeOptions,
} from '../../../../session-core';
import type { ClientFrame } from '../../../connection/client-frames';
import { isClientsOwnClose } from '../../../connection/client-close';
import { ListenAudioInput } from './deepgram-audio';

/** Deepgram ends a socket that sends nothing for 10 s. */
export const LISTEN_IDLE_MS = 10_000;

export interface DeepgramConnectionOptions extends Omit<SessionRuntimeOptions, 'renderer'> {
  readonly config: SessionConfig;
  readonly idleMs?: number;
}

export abstract class DeepgramConnection<R extends EventRenderer> {
  readonly runtime: SessionRuntime;
  protected readonly audio: ListenAudioInput;
  protected readonly renderer: R;
  private readonly idle: IdleWatch;

  /** `renderer` is made with the audio input, whose length and hash a closing `Metadata` reports. */
  protected constructor(
    options: DeepgramConnectionOptions,
    audio: ListenAudioInput,
    renderer: (audio: ListenAudioInput) => R,
  ) {
    const { config, idleMs = LISTEN_IDLE_MS, ...runtimeOptions } = options;
    this.audio = audio;
    this.renderer = renderer(this.audio);
    this.runtime = new SessionRuntime({ ...runtimeOptions, renderer: this.renderer });
    this.runtime.handle({ type: 'start', config, implicit: true });
    const idle = new IdleWatch(options.clock ?? systemClock, idleMs, () => void this.runtime.end({ kind: 'idle' }));
    void this.runtime.done.then(() => idle.stop());
    this.idle = idle;
  }

  /** ws: `socket.on('message', (data, isBinary) => connection.onMessage(data, isBinary))`. */
  onMessage(frame: ClientFrame, isBinary: boolean): void {
    this.idle.seen();
    this.receive(frame, isBinary);
  }

  onClose(code: number): void {
    this.idle.stop();
    if (isClientsOwnClose(code)) this.runtime.clientClosed();
    else this.runtime.transportClosed();
  }

  /** One client frame, in the connection's own protocol. */
  protected abstract receive(frame: ClientFrame, isBinary: boolean): void;

  /** A frame's audio to the session; false when it held no whole sample yet. */
  protected append(bytes: Buffer): boolean {
    const pcm = this.audio.push(bytes);
    if (pcm.length === 0) return false;
    this.runtime.handle({ type: 'append', audio: pcm });
    return true;
  }
}
