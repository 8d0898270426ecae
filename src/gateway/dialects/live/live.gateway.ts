import { Inject, Logger } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { AppConfig } from '../../../config/app-config';
import { FailedAuthThrottle } from '../../../modules/auth';
import { SPEECH_ENGINE, SpeechEngine } from '../../../engines/contract';
import { LiveConnection } from './live.connection';
import { guardHandshake } from '../../handshake/handshake';
import { MAX_SOCKET_MESSAGE_BYTES, START_TIMEOUT_MS } from '../../connection/socket-limits';
import { SessionPortsFactory } from '../../connection/session-ports.factory';
import { SocketAdmission } from '../../handshake/socket-admission.service';
import { SocketSessions } from '../../connection/socket-sessions.service';
import { wsTransport } from '../../connection/ws-transport';

/** `session.live_url`: the live protocol (openai Live convention) over the shared session core. */
@WebSocketGateway({ path: '/v1/live/sessions', maxPayload: MAX_SOCKET_MESSAGE_BYTES })
export class LiveGateway implements OnGatewayInit, OnGatewayConnection {
  private readonly logger = new Logger('LiveGateway');

  constructor(
    private readonly admission: SocketAdmission,
    private readonly ports: SessionPortsFactory,
    private readonly sessions: SocketSessions,
    private readonly config: AppConfig,
    private readonly throttle: FailedAuthThrottle,
    @Inject(SPEECH_ENGINE) private readonly engine: SpeechEngine,
  ) {}

  afterInit(server: WebSocketServer): void {
    guardHandshake(server, 'live', this.admission, this.throttle, (code) => this.sessions.refused(code));
  }

  handleConnection(ws: WebSocket, req: IncomingMessage): void {
    const admitted = this.admission.take(req);
    const ports = this.ports.create(admitted, 'live');
    const connection = new LiveConnection({
      sessionId: admitted.sessionId,
      engine: this.engine,
      lock: admitted.kind === 'client_secret' ? admitted.lock : null,
      store: ports.store,
      meter: ports.meter,
      transport: wsTransport(ws),
      logger: { warn: (m) => this.logger.warn(m), error: (m) => this.logger.error(m) },
      limits: { maxSessionMs: this.config.maxSessionSeconds * 1000 },
    });
    this.sessions.track('live', connection.runtime, ports, ws);
    ws.on('message', (data, isBinary) => connection.onMessage(data, isBinary));
    ws.on('close', () => connection.onClose());
    // A socket that never starts a session must not hold a slot (or a redeemed secret's row) forever.
    const startTimer = setTimeout(() => {
      if (connection.runtime.phase === 'awaiting_start') ws.close(1008, 'session.start not received in time');
    }, START_TIMEOUT_MS);
    void connection.runtime.done.finally(() => clearTimeout(startTimer));
  }
}
