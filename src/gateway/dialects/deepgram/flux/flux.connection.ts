/**
 * One `/v2/listen` socket, transport-independent. Like `/v1/listen` it starts on connect with what
 * the query asked for; audio is resampled to 24 kHz on the way in. Configure changes the end-of-turn
 * thresholds at once (ConfigureSuccess echoes what is now in force; a bad one is ConfigureFailure
 * and nothing changes); ForceEndTurn ends the turn in progress (EndOfTurn, trigger manual);
 * CloseStream ends the session: the last EndOfTurn, then close 1000. An undecodable message is an
 * Error, then close 1008. About 10 s without any frame ends the session as expired (idle_timeout).
 */
import type { SessionRuntimeOptions, EndOfTurnSettings } from '../../../../session-core';
import { SessionRuntime } from '../../../../session-core';
import type { IdleWatch, SessionConfig } from '../../../../session-core';
import type { ClientFrame } from '../../../connection/client-frames';
import { ListenAudioInput } from '../shared/deepgram-audio';
import { parseFluxFrame, type FluxThresholds } from './flux.protocol';
import { checkedThresholds, type FluxOptions } from './flux.query';
import { FluxRenderer } from './flux.render';
import { startWatchingIdle } from '../shared/idle-watch';
import { isClientsOwnClose } from '../../../connection/client-close';

export interface FluxConnectionOptions extends Omit<SessionRuntimeOptions, 'renderer'> {
  readonly config: SessionConfig;
  readonly flux: FluxOptions;
  readonly idleMs?: number;
}

export class FluxConnection {
  readonly runtime: SessionRuntime;
  private readonly audio: ListenAudioInput;
  private readonly renderer: FluxRenderer;
  private settings: EndOfTurnSettings;
  private keyterms: readonly string[];
  private heardSinceTurnEnd = false;
  private readonly idle: IdleWatch;

  constructor(options: FluxConnectionOptions) {
    const { config, flux, idleMs, ...runtimeOptions } = options;
    this.settings = flux.endOfTurn;
    this.keyterms = flux.keyterms;
    this.audio = new ListenAudioInput(flux.sampleRate);
    this.renderer = new FluxRenderer(options.sessionId);
    this.runtime = new SessionRuntime({ ...runtimeOptions, renderer: this.renderer });
    this.idle = startWatchingIdle(this.runtime, config, options.clock, idleMs);
  }

  /** ws: `socket.on('message', (data, isBinary) => connection.onMessage(data, isBinary))`. */
  onMessage(frame: ClientFrame, isBinary: boolean): void {
    this.idle.seen();
    const message = parseFluxFrame(frame, isBinary);
    switch (message.kind) {
      case 'audio': {
        const pcm = this.audio.push(message.bytes);
        if (pcm.length > 0) {
          this.heardSinceTurnEnd = true;
          this.runtime.handle({ type: 'append', audio: pcm });
        }
        return;
      }
      case 'configure':
        return this.configure(message.thresholds, message.keyterms);
      case 'configure_invalid':
        if (this.runtime.control()) this.runtime.sendDialectFrame(this.renderer.configureFailure());
        return;
      case 'force_end_turn':
        // Nothing heard since the last end: there is no turn to end (a commit would be refused).
        if (!this.heardSinceTurnEnd) return void this.runtime.control();
        this.heardSinceTurnEnd = false;
        return this.runtime.handle({ type: 'commit' });
      case 'close_stream':
        return this.runtime.handle({ type: 'close' });
      case 'invalid':
        this.runtime.sendDialectFrame(this.renderer.error('UNPARSABLE_CLIENT_MESSAGE', message.reason));
        void this.runtime.end({ kind: 'invalid_input' });
        return;
    }
  }

  /** A client's close handshake is its end of the stream; a socket gone without one is a dropped connection. */
  onClose(code: number): void {
    this.idle.stop();
    if (isClientsOwnClose(code)) this.runtime.clientClosed();
    else this.runtime.transportClosed();
  }

  private configure(thresholds: FluxThresholds, keyterms: readonly string[] | null): void {
    let next: EndOfTurnSettings;
    try {
      next = checkedThresholds({
        eotThreshold: thresholds.eot_threshold ?? this.settings.eotThreshold,
        eagerEotThreshold: thresholds.eager_eot_threshold ?? this.settings.eagerEotThreshold,
        eotTimeoutMs: thresholds.eot_timeout_ms ?? this.settings.eotTimeoutMs,
      });
    } catch {
      if (this.runtime.control()) this.runtime.sendDialectFrame(this.renderer.configureFailure());
      return;
    }
    this.settings = next;
    if (keyterms !== null) this.keyterms = keyterms;
    this.runtime.handle({ type: 'turn_settings', settings: next });
    this.runtime.sendDialectFrame(this.renderer.configureSuccess(next, this.keyterms));
  }
}
