import { Logger } from '@nestjs/common';
import { OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { CallBridge } from '../call-bridge';
import { CallSessions } from '../call-sessions';
import { TWILIO_PROTOCOL } from './twilio.protocol';

/** 64 KiB: a media frame is about 300 bytes; `start` with its parameters a few KiB. */
const MAX_TWILIO_FRAME_BYTES = 64 * 1024;

/**
 * `/v1/telephony/twilio`: Twilio Media Streams (`<Connect><Stream url="wss://…/v1/telephony/twilio">`
 * with `<Parameter name="token" value="ek_…"/>`). Twilio sends no header of the app's, so the
 * upgrade is open to anyone and worth nothing until `start` brings a client secret.
 */
@WebSocketGateway({ path: '/v1/telephony/twilio', maxPayload: MAX_TWILIO_FRAME_BYTES })
export class TwilioGateway implements OnGatewayConnection {
  private readonly logger = new Logger('TwilioGateway');

  constructor(private readonly calls: CallSessions) {}

  handleConnection(ws: WebSocket, req: IncomingMessage): void {
    new CallBridge(
      ws,
      TWILIO_PROTOCOL,
      (token, socket) => this.calls.open('twilio', req, token, socket, this.logger),
      this.logger,
    );
  }
}
