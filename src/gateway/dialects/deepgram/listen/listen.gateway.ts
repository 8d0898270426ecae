import { Inject, Logger } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { AppConfig } from '../../../../config/app-config';
import { ENGINE_REGISTRY, EngineRegistry } from '../../../../engines/registry/engine-registry';
import { FailedAuthThrottle } from '../../../../modules/auth';
import { CompatAdmission, type CompatDialect } from '../../../handshake/compat-admission.service';
import { guardCompatHandshake } from '../../../handshake/compat-handshake';
import { ListenConnection, listenTransport } from './listen.connection';
import { listenConfig, parseListenQuery, type ListenOptions } from './listen.query';
import { MAX_SOCKET_MESSAGE_BYTES } from '../../../connection/socket-limits';
import { SocketSessions } from '../../../connection/socket-sessions.service';

export const LISTEN_DIALECT: CompatDialect<ListenOptions> = {
  name: 'listen',
  parse: (req) => parseListenQuery(req.url),
  language: (request) => request.language,
  configure: listenConfig,
};

/** `/v1/listen`: Deepgram's live transcription protocol over the shared session core. */
@WebSocketGateway({ path: '/v1/listen', maxPayload: MAX_SOCKET_MESSAGE_BYTES })
export class ListenGateway implements OnGatewayInit, OnGatewayConnection {
  private readonly logger = new Logger('ListenGateway');

  constructor(
    private readonly admission: CompatAdmission,
    private readonly sessions: SocketSessions,
    private readonly config: AppConfig,
    private readonly throttle: FailedAuthThrottle,
    @Inject(ENGINE_REGISTRY) private readonly engines: EngineRegistry,
  ) {}

  afterInit(server: WebSocketServer): void {
    guardCompatHandshake(
      server,
      'listen',
      (req) => this.admission.admit(req, LISTEN_DIALECT),
      this.throttle,
      (code) => this.sessions.refused(code),
    );
    // Deepgram names the request on the 101; here it is the session id (GET /v1/sessions/{id}).
    server.on('headers', (headers: string[], req: IncomingMessage) => {
      const admitted = this.admission.peek(req);
      if (admitted !== undefined) headers.push(`dg-request-id: ${admitted.sessionId}`);
    });
  }

  handleConnection(ws: WebSocket, req: IncomingMessage): void {
    const admitted = this.admission.take<ListenOptions>(req);
    const connection = new ListenConnection({
      sessionId: admitted.sessionId,
      config: admitted.config,
      listen: admitted.request,
      // The model's own engine: a Deepgram session never changes model, and Metadata names the engine.
      engine: this.engines.engineFor(admitted.config.model),
      store: admitted.ports.store,
      meter: admitted.ports.meter,
      transport: listenTransport(ws),
      logger: { warn: (m) => this.logger.warn(m), error: (m) => this.logger.error(m) },
      limits: { maxSessionMs: this.config.maxSessionSeconds * 1000 },
    });
    this.sessions.track('listen', connection.runtime, admitted.ports, ws);
    ws.on('message', (data, isBinary) => connection.onMessage(data, isBinary));
    ws.on('close', (code) => connection.onClose(code));
  }
}
