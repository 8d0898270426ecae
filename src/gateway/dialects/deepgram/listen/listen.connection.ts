/**
 * One `/v1/listen` socket, transport-independent. Deepgram has no start event either: the session
 * starts on connect with the configuration the query asked for. Audio is resampled to 24 kHz on
 * the way in; KeepAlive only keeps the stream alive; Finalize commits the utterance (its final
 * result says from_finalize); CloseStream ends the session (close_requested): the last results,
 * then Metadata, then close 1000. About 10 s without any frame ends it as expired (detail
 * idle_timeout) with 1011 NET-0001, as Deepgram does.
 */
import type { WebSocket } from 'ws';
import type { TransportPort } from '../../../../session-core';
import type { ClientFrame } from '../../../connection/client-frames';
import { ListenAudioInput } from '../shared/deepgram-audio';
import { DeepgramConnection, type DeepgramConnectionOptions } from '../shared/deepgram-connection';
import { parseListenFrame } from './listen.protocol';
import type { ListenOptions } from './listen.query';
import { ListenRenderer } from './listen.render';

export { LISTEN_IDLE_MS } from '../shared/deepgram-connection';

export interface ListenConnectionOptions extends DeepgramConnectionOptions {
  readonly listen: ListenOptions;
}

export class ListenConnection extends DeepgramConnection<ListenRenderer> {
  constructor(options: ListenConnectionOptions) {
    const { listen, config, sessionId, engine } = options;
    super(options, new ListenAudioInput(listen.sampleRate, listen.encoding), (audio) => {
      return new ListenRenderer({ requestId: sessionId, listen, model: config.model, engineName: engine.name, audio });
    });
  }

  protected receive(frame: ClientFrame, isBinary: boolean): void {
    const message = parseListenFrame(frame, isBinary);
    switch (message.kind) {
      case 'audio': {
        this.append(message.bytes);
        const utteranceEnd = this.renderer.utteranceEnd(this.audio.receivedMs);
        if (utteranceEnd !== null) this.runtime.sendDialectFrame(utteranceEnd);
        return;
      }
      case 'keep_alive':
        this.runtime.control();
        return;
      case 'finalize':
        return this.runtime.handle({ type: 'commit' });
      case 'close_stream':
        return this.runtime.handle({ type: 'close' });
      case 'invalid':
        void this.runtime.end({ kind: 'invalid_input' });
        return;
    }
  }
}

/** Deepgram's close reasons: clients and their logs match on NET-0001 / DATA-0000. */
export const CLOSE_REASONS: Readonly<Record<string, string>> = {
  idle_timeout: 'NET-0001: no audio or text message was received within the 10 s timeout window',
  invalid_input: 'DATA-0000: the payload could not be decoded as audio or a control message',
  key_revoked: 'the API key that opened this stream was revoked',
};

/** The session core's view of a Deepgram socket: a normal close says nothing, as Deepgram's does. */
export function listenTransport(ws: WebSocket): TransportPort {
  return {
    send: (frame) => {
      if (ws.readyState === ws.OPEN) ws.send(frame);
    },
    close: (code, reason) => {
      // A client that stopped reading would never answer a close handshake.
      if (reason === 'client_not_reading') return ws.terminate();
      ws.close(code, code === 1000 ? '' : (CLOSE_REASONS[reason] ?? reason));
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  };
}
