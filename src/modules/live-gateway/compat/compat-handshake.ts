import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { WebSocketServer } from 'ws';
import { renderError } from '../../../common/errors/error-renderer';
import { newId } from '../../../common/ids';
import type { FailedAuthThrottle } from '../../auth/failed-auth.throttle';
import { refusalCode } from '../../metrics/session-metrics';
import { chooseProtocol, type SocketDialect } from '../../auth/socket-credentials';

const logger = new Logger('SocketHandshake');

type VerifyCallback = (ok: boolean, status?: number, message?: string, headers?: Record<string, string>) => void;

/**
 * Like the live socket's guardHandshake, with the dialect's whole admission in place of the shared
 * one: a refusal is the REST API's status and ErrorEnvelope before the upgrade, and the dialect's
 * subprotocol (`realtime`, `token`/`bearer`) is echoed, which browser clients require.
 */
export function guardCompatHandshake(
  server: WebSocketServer,
  dialect: SocketDialect,
  admit: (req: IncomingMessage) => Promise<void>,
  throttle: FailedAuthThrottle,
  onRefused: (code: string) => void = () => undefined,
): void {
  server.options.verifyClient = (info: { req: IncomingMessage }, done: VerifyCallback) => {
    admit(info.req).then(
      () => done(true),
      async (refusal: unknown) => {
        // An authentication refusal counts against the address, as on REST (and may become a 429).
        const error = await throttle.judge(refusal, throttle.addressOf(info.req));
        const requestId = newId('req');
        const rendered = renderError(error, requestId);
        if (rendered.unexpected) logger.error({ err: error, requestId, dialect }, 'socket handshake failed');
        onRefused(refusalCode(rendered.body));
        done(false, rendered.status, JSON.stringify(rendered.body), {
          'Content-Type': 'application/json',
          'x-request-id': requestId,
          ...rendered.headers,
        });
      },
    );
  };
  server.options.handleProtocols = (offered: Set<string>) => chooseProtocol(dialect, offered);
}
