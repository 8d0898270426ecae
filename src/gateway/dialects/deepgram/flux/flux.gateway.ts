import { Inject, Logger } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { AppConfig } from '../../../../config/app-config';
import { ENGINE_REGISTRY, EngineRegistry } from '../../../../engines/registry/engine-registry';
import { FailedAuthThrottle } from '../../../../modules/auth';
import { CompatAdmission, type CompatDialect } from '../../../handshake/compat-admission.service';
import { guardCompatHandshake } from '../../../handshake/compat-handshake';
import { listenTransport } from '../listen/listen.connection';
import { MAX_SOCKET_MESSAGE_BYTES } from '../../../connection/socket-limits';
import { SocketSessions } from '../../../connection/socket-sessions.service';
import { FluxConnection } from './flux.connection';
import { fluxConfig, parseFluxQuery, type FluxOptions } from './flux.query';

/** Same credentials as `/v1/listen` (Token/Bearer key or client secret), its own query. */
export const FLUX_DIALECT: CompatDialect<FluxOptions> = {
  name: 'listen',
  parse: (req) => parseFluxQuery(req.url),
  configure: fluxConfig,
};

/** `/v2/listen`: Deepgram Flux's turn-taking transcription protocol over the shared session core. */
@WebSocketGateway({ path: '/v2/listen', maxPayload: MAX_SOCKET_MESSAGE_BYTES })
export class FluxGateway implements OnGatewayInit, OnGatewayConnection {
  private readonly logger = new Logger('FluxGateway');

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
      (req) => this.admission.admit(req, FLUX_DIALECT),
      this.throttle,
      (code) => this.sessions.refused(code),
    );
    server.on('headers', (headers: string[], req: IncomingMessage) => {
      const admitted = this.admission.peek(req);
      if (admitted !== undefined) headers.push(`dg-request-id: ${admitted.sessionId}`);
    });
  }

  handleConnection(ws: WebSocket, req: IncomingMessage): void {
    const admitted = this.admission.take<FluxOptions>(req);
    const connection = new FluxConnection({
      sessionId: admitted.sessionId,
      config: admitted.config,
      flux: admitted.request,
      engine: this.engines.engineFor(admitted.config.model),
      store: admitted.ports.store,
      meter: admitted.ports.meter,
      transport: listenTransport(ws),
      logger: { warn: (m) => this.logger.warn(m), error: (m) => this.logger.error(m) },
      limits: { maxSessionMs: this.config.maxSessionSeconds * 1000 },
    });
    this.sessions.track('flux', connection.runtime, admitted.ports, ws);
    ws.on('message', (data, isBinary) => connection.onMessage(data, isBinary));
    ws.on('close', (code) => connection.onClose(code));
  }
}
