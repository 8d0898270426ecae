import { Injectable, type Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { VOICECHAT } from '../../engines';
import { FailedAuthThrottle } from '../../modules/auth';
import { newCallId, SessionsService, type SessionTransport } from '../../modules/sessions';

import { REALTIME_DIALECT } from '../dialects/realtime/realtime.dialect';
import { SocketAdmission } from '../handshake/socket-admission';
import { SocketWiring } from '../socket-gateway';
import type { SessionSocket } from './session-socket';

/** Headers that could carry a credential: a call's only credential is its stream's token. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'sec-websocket-protocol']);

/**
 * Opens a call's session as a Realtime socket's would open: the one admission (draining, the failed-
 * auth throttle on the carrier's address, capacity, the secret redeemed once, the project's share),
 * then the Realtime dialect's connection on the call's in-process socket, tracked, limited and
 * metered like every socket's session.
 */
@Injectable()
export class CallSessions {
  constructor(
    private readonly admission: SocketAdmission,
    private readonly wiring: SocketWiring,
    private readonly throttle: FailedAuthThrottle,
    private readonly sessions: SessionsService,
  ) {}

  async open(
    transport: SessionTransport,
    upgrade: IncomingMessage,
    token: string,
    socket: SessionSocket,
    logger: Logger,
  ): Promise<{ sessionId: string; callId: string; conversation: boolean }> {
    const headers: IncomingMessage['headers'] = {};
    for (const [name, value] of Object.entries(upgrade.headers))
      if (!CREDENTIAL_HEADERS.has(name)) headers[name] = value;
    headers.authorization = `Bearer ${token}`;
    // The secret's own session type and model win over the URL's (a conversation on its model).
    const req = Object.create(upgrade, {
      url: { value: `${REALTIME_DIALECT.path}?model=${VOICECHAT}` },
      headers: { value: headers },
    }) as IncomingMessage;
    try {
      await this.admission.admit(req, REALTIME_DIALECT);
    } catch (refusal) {
      // A refused token counts against the carrier's address, as a refused handshake does.
      throw await this.throttle.judge(refusal, this.throttle.addressOf(req));
    }
    const admitted = this.admission.peek(req)!;
    this.wiring.connect(REALTIME_DIALECT, logger, socket.asWebSocket(), req);
    const sessionId = admitted.session.sessionId;
    const callId = newCallId();
    // The session is the call's from now on; listing it as one may trail by a statement.
    this.sessions
      .recordTransport(sessionId, transport, callId)
      .catch((error: unknown) => logger.warn(`call ${callId}: its transport was not recorded: ${String(error)}`));
    return { sessionId, callId, conversation: admitted.config?.type === 'live' };
  }
}
