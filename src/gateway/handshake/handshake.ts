import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { WebSocketServer } from 'ws';
import { renderError } from '../../platform/errors/error-renderer';
import { newId } from '../../platform/ids';
import type { FailedAuthThrottle } from '../../modules/auth';
import { refusalCode } from '../../modules/metrics';
import { chooseProtocol, extractSocketCredential } from './socket-credentials';
import type { Dialect } from '../dialect';

const logger = new Logger('SocketHandshake');

type VerifyCallback = (ok: boolean, status?: number, message?: string, headers?: Record<string, string>) => void;

/**
 * Makes the ws server admit before the upgrade: a refusal is an HTTP answer with the status and
 * ErrorEnvelope of the REST API (clients see it as an unexpected response, not a dropped socket, and
 * the SDKs do not retry it). Also echoes the dialect's subprotocol, which browser clients require.
 */
export function guardHandshake(
  server: WebSocketServer,
  dialect: Dialect,
  admit: (req: IncomingMessage) => Promise<void>,
  throttle: FailedAuthThrottle,
  onRefused: (code: string) => void,
): void {
  server.options.verifyClient = (info: { req: IncomingMessage }, done: VerifyCallback) => {
    admit(info.req).then(
      () => done(true),
      async (refusal: unknown) => {
        // An authentication refusal counts against the address, as on REST (and may become a 429).
        const found = extractSocketCredential(info.req, dialect.credentials);
        const credential = found.kind === 'found' ? found.credential.value : undefined;
        const error = await throttle.judge(refusal, throttle.addressOf(info.req), credential);
        const requestId = newId('req');
        const rendered = renderError(error, requestId);
        if (rendered.unexpected)
          logger.error({ err: error, requestId, dialect: dialect.name }, 'socket handshake failed');
        onRefused(refusalCode(rendered.body));
        done(false, rendered.status, JSON.stringify(rendered.body), {
          'Content-Type': 'application/json', // ws merges by exact key; this replaces its text/html
          'x-request-id': requestId,
          ...rendered.headers,
        });
      },
    );
  };
  server.options.handleProtocols = (offered: Set<string>) => chooseProtocol(dialect.credentials, offered);
}
