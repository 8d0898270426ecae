import { Inject, Logger } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { AppConfig } from '../../../config/app-config';
import { FailedAuthThrottle } from '../../../modules/auth';
import { SPEECH_ENGINE, SpeechEngine } from '../../../engines/contract';
import { ModelCatalog } from '../../../modules/models';
import { CompatAdmission, type CompatDialect } from '../../handshake/compat-admission.service';
import { guardCompatHandshake } from '../../handshake/compat-handshake';
import { DEFAULT_TRANSCRIPTION_CONFIG } from '../../../session-core';
import { RealtimeConnection } from './realtime.connection';
import { checkRealtimeQuery } from './realtime.query';
import { MAX_SOCKET_MESSAGE_BYTES } from '../../connection/socket-limits';
import { SocketSessions } from '../../connection/socket-sessions.service';
import { wsTransport } from '../../connection/ws-transport';

/** The Realtime socket's handshake: the query only; the session runs the secret's configuration or the defaults. */
export const REALTIME_DIALECT: CompatDialect<void> = {
  name: 'realtime',
  parse: (req) => checkRealtimeQuery(req.url),
  configure: (_request, lock) => lock ?? DEFAULT_TRANSCRIPTION_CONFIG,
};

/** `/v1/realtime?intent=transcription`: OpenAI Realtime transcription sessions over the shared session core. */
@WebSocketGateway({ path: '/v1/realtime', maxPayload: MAX_SOCKET_MESSAGE_BYTES })
export class RealtimeGateway implements OnGatewayInit, OnGatewayConnection {
  private readonly logger = new Logger('RealtimeGateway');

  constructor(
    private readonly admission: CompatAdmission,
    private readonly sessions: SocketSessions,
    private readonly config: AppConfig,
    private readonly throttle: FailedAuthThrottle,
    @Inject(SPEECH_ENGINE) private readonly engine: SpeechEngine,
    private readonly models: ModelCatalog,
  ) {}

  afterInit(server: WebSocketServer): void {
    guardCompatHandshake(
      server,
      'realtime',
      (req) => this.admission.admit(req, REALTIME_DIALECT),
      this.throttle,
      (code) => this.sessions.refused(code),
    );
  }

  handleConnection(ws: WebSocket, req: IncomingMessage): void {
    const admitted = this.admission.take<void>(req);
    const connection = new RealtimeConnection({
      sessionId: admitted.sessionId,
      config: admitted.config,
      engine: this.engine,
      store: admitted.ports.store,
      meter: admitted.ports.meter,
      transport: wsTransport(ws),
      logger: { warn: (m) => this.logger.warn(m), error: (m) => this.logger.error(m) },
      limits: { maxSessionMs: this.config.maxSessionSeconds * 1000 },
      checkLanguage: (language, param) => this.models.checkLanguage(admitted.config.model, language, param),
    });
    this.sessions.track('realtime', connection.runtime, admitted.ports, ws);
    ws.on('message', (data, isBinary) => connection.onMessage(data, isBinary));
    ws.on('close', (code) => connection.onClose(code));
  }
}
