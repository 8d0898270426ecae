import type { Logger } from 'pino';

export type EscapedKind = 'unhandled_rejection' | 'uncaught_exception';

/**
 * The last line of defence of a multi-tenant process. Every session's and request's work catches its own
 * failures (a session ends, a request answers 500); what still escapes is a bug, but the process serves
 * every other project's sessions, so it is logged and counted (`continuum_escaped_errors_total`, which an
 * alert should watch) rather than taken down with them. Node's default would exit on either.
 */
export function guardProcess(logger: Logger, count: (kind: EscapedKind) => void): void {
  process.on('unhandledRejection', (reason: unknown) => {
    count('unhandled_rejection');
    logger.error({ err: reason }, 'an unhandled promise rejection escaped; the process goes on (a bug: report it)');
  });
  process.on('uncaughtException', (error: Error) => {
    count('uncaught_exception');
    logger.error({ err: error }, 'an uncaught exception escaped; the process goes on (a bug: report it)');
  });
}
