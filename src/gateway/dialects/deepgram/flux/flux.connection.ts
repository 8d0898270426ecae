/**
 * One `/v2/listen` socket, transport-independent. Like `/v1/listen` it starts on connect with what
 * the query asked for; audio is resampled to 24 kHz on the way in. Configure changes the end-of-turn
 * thresholds at once (ConfigureSuccess echoes what is now in force; a bad one is ConfigureFailure
 * and nothing changes); ForceEndTurn ends the turn in progress (EndOfTurn, trigger manual);
 * CloseStream ends the session: the last EndOfTurn, then close 1000. An undecodable message is an
 * Error, then close 1008. About 10 s without any frame ends the session as expired (idle_timeout).
 */
import type { EndOfTurnSettings } from '../../../../session-core';
import type { ClientFrame } from '../../../connection/client-frames';
import { ListenAudioInput } from '../shared/deepgram-audio';
import { DeepgramConnection, type DeepgramConnectionOptions } from '../shared/deepgram-connection';
import { parseFluxFrame, type FluxThresholds } from './flux.protocol';
import { checkedThresholds, type FluxOptions } from './flux.query';
import { FluxRenderer } from './flux.render';

export interface FluxConnectionOptions extends DeepgramConnectionOptions {
  readonly flux: FluxOptions;
}

export class FluxConnection extends DeepgramConnection<FluxRenderer> {
  private settings: EndOfTurnSettings;
  private keyterms: readonly string[];
  private heardSinceTurnEnd = false;

  constructor(options: FluxConnectionOptions) {
    super(options, new ListenAudioInput(options.flux.sampleRate), () => new FluxRenderer(options.sessionId));
    this.settings = options.flux.endOfTurn;
    this.keyterms = options.flux.keyterms;
  }

  protected receive(frame: ClientFrame, isBinary: boolean): void {
    const message = parseFluxFrame(frame, isBinary);
    switch (message.kind) {
      case 'audio':
        if (this.append(message.bytes)) this.heardSinceTurnEnd = true;
        return;
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
