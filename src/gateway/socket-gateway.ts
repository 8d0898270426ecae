import { Inject, Injectable, Logger, type Type } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { AppConfig } from '../config/app-config';
import { decodeSecretConversation, SPEECH_ENGINE, type SpeechEngine } from '../session-core';
import { ENGINE_REGISTRY, type EngineRegistry } from '../engines';
import { FailedAuthThrottle } from '../modules/auth';
import { ModelCatalog } from '../modules/models';
import { TickScheduler } from '../platform/clock/tick-scheduler';
import type { Dialect, DialectConnection } from './dialect';
import type { RunningCall } from './connection/running-calls';
import { wsTransport } from './connection/ws-transport';
import { configuredSessionLimits, MAX_SOCKET_MESSAGE_BYTES } from './connection/socket-limits';
import { SocketSessions } from './connection/socket-sessions.service';
import { guardHandshake } from './handshake/handshake';
import { SocketAdmission } from './handshake/socket-admission';
import { SidebandRelays } from './sideband/sideband-relays';

/** The wiring every dialect's gateway shares: the handshake's admission, then the connection's life. */
@Injectable()
export class SocketWiring {
  constructor(
    private readonly admission: SocketAdmission,
    private readonly sessions: SocketSessions,
    private readonly config: AppConfig,
    private readonly throttle: FailedAuthThrottle,
    private readonly models: ModelCatalog,
    @Inject(SPEECH_ENGINE) private readonly engine: SpeechEngine,
    @Inject(ENGINE_REGISTRY) private readonly engines: EngineRegistry,
    private readonly clock: TickScheduler,
    private readonly relays: SidebandRelays,
  ) {}

  init(dialect: Dialect, server: WebSocketServer): void {
    guardHandshake(
      server,
      dialect,
      (req) => this.admission.admit(req, dialect),
      this.throttle,
      (code) => this.sessions.refused(code),
    );
    const { upgradeHeaders } = dialect;
    if (upgradeHeaders) {
      server.on('headers', (headers: string[], req: IncomingMessage) => {
        const admitted = this.admission.peek(req);
        if (admitted !== undefined) headers.push(...upgradeHeaders(admitted.session.sessionId));
      });
    }
  }

  /**
   * The connection of an admitted socket: its own session's (returned), or a sideband's joined to a
   * call here or relayed to the instance that holds it (null).
   */
  connect(dialect: Dialect, logger: Logger, ws: WebSocket, req: IncomingMessage): DialectConnection | null {
    const call = this.admission.takeSideband(req);
    if (call !== undefined) {
      this.join(call, logger, ws);
      return null;
    }
    const owner = this.admission.takeRelayed(req);
    if (owner !== undefined) {
      this.relays.relay(ws, owner, req);
      return null;
    }
    const admitted = this.admission.take(req);
    const { store, meter } = admitted.ports;
    const connection = dialect.connect({
      ws,
      query: admitted.query,
      config: admitted.config,
      lock: admitted.lock,
      secretConversation:
        admitted.session.kind === 'opened' ? decodeSecretConversation(admitted.session.opened.realtimeSession) : null,
      runtime: {
        sessionId: admitted.session.sessionId,
        store,
        meter,
        // The one clock: every session's timers (output pacing, holds, expiry, meter retries) ride its ticks.
        clock: this.clock,
        logger: { warn: (m) => logger.warn(m), error: (m) => logger.error(m) },
        limits: configuredSessionLimits(this.config),
      },
      conversation: this.config.conversationLimits,
      engines: { default: this.engine, for: (model) => this.engines.engineFor(model) },
      models: this.models,
    });
    admitted.claim.bind();
    void connection.runtime.done.then(() => admitted.claim.release());
    this.sessions.track(dialect.name, connection.runtime, admitted.ports, ws);
    // A throwing handler would escape into ws's socket callbacks and take the process down with every
    // other session: it ends this session instead.
    ws.on('message', (data, isBinary) => {
      try {
        connection.onMessage(data, isBinary);
      } catch (error) {
        connection.runtime.fault(error, 'message handler');
      }
    });
    ws.on('close', (code) => {
      try {
        connection.onClose(code);
      } catch (error) {
        connection.runtime.fault(error, 'close handler');
      }
    });
    return connection;
  }

  /**
   * A sideband joins its call's session as a control connection: it leaves with its socket and ends
   * nothing; the call's end closes it. A throwing handler closes the sideband alone, never the call.
   */
  private join(call: RunningCall, logger: Logger, ws: WebSocket): void {
    const control = call.join(wsTransport(ws));
    logger.log(`sideband joined call ${call.callId} (session ${call.sessionId})`);
    ws.on('message', (data, isBinary) => {
      try {
        control.onMessage(data, isBinary);
      } catch (error) {
        logger.error(`sideband of call ${call.callId}: ${error instanceof Error ? error.stack : String(error)}`);
        ws.close(1011, 'internal_error');
      }
    });
    ws.on('close', (code) => control.onClose(code));
  }
}

/** A Nest gateway for one dialect: its path, and the shared wiring. */
export function socketGateway(dialect: Dialect): Type<unknown> {
  const name = `${dialect.name[0].toUpperCase()}${dialect.name.slice(1)}Gateway`;

  @WebSocketGateway({ path: dialect.path, maxPayload: MAX_SOCKET_MESSAGE_BYTES })
  class DialectGateway implements OnGatewayInit, OnGatewayConnection {
    private readonly logger = new Logger(name);

    constructor(private readonly wiring: SocketWiring) {}

    afterInit(server: WebSocketServer): void {
      this.wiring.init(dialect, server);
    }

    handleConnection(ws: WebSocket, req: IncomingMessage): void {
      try {
        this.wiring.connect(dialect, this.logger, ws, req);
      } catch (error) {
        this.logger.error(`connection setup failed: ${error instanceof Error ? error.stack : String(error)}`);
        ws.close(1011, 'internal_error');
      }
    }
  }
  Object.defineProperty(DialectGateway, 'name', { value: name });
  return DialectGateway;
}
