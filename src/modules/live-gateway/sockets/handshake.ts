import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { WebSocketServer } from 'ws';
import { renderError } from '../../../common/errors/error-renderer';
import { newId } from '../../../common/ids';
import type { FailedAuthThrottle } from '../../auth/failed-auth.throttle';
import { refusalCode } from '../../metrics/session-metrics';
import { chooseProtocol, SocketDialect } from '../../auth/socket-credentials';
import type { SocketAdmission } from './socket-admission.service';

const logger = new Logger('SocketHandshake');

type VerifyCallback = (ok: boolean, status?: number, message?: string, headers?: Record<string, string>) => void;

/**
 * Makes the ws server authenticate before the upgrade: a refusal is an HTTP answer with the status
 * and ErrorEnvelope of the REST API (clients see it as an unexpected response, not a dropped socket).
 * Also echoes the dialect's subprotocol, which browser clients require.
 */
export function guardHandshake(
  server: WebSocketServer,
  dialect: SocketDialect,
  admission: SocketAdmission,
  throttle: FailedAuthThrottle,
  onRefused: (code: string) => void = () => undefined,
): void {
  server.options.verifyClient = (info: { req: IncomingMessage }, done: VerifyCallback) => {
    admission.admit(info.req, dialect).then(
      () => done(true),
      async (refusal: unknown) => {
        // An authentication refusal counts against the address, as on REST (and may become a 429).
        const error = await throttle.judge(refusal, throttle.addressOf(info.req));
        const requestId = newId('req');
        const rendered = renderError(error, requestId);
        if (rendered.unexpected) logger.error({ err: error, requestId, dialect }, 'socket handshake failed');
        onRefused(refusalCode(rendered.body));
        done(false, rendered.status, JSON.stringify(rendered.body), {
          'Content-Type': 'application/json', // ws merges by exact key; this replaces its text/html
          'x-request-id': requestId,
          ...rendered.headers,
        });
      },
    );
  };
  server.options.handleProtocols = (offered: Set<string>) => chooseProtocol(dialect, offered);
}
