import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { REDACTED_PATHS, redactUrl, scrubbingDestination } from './redact';
import { serializeError } from './safe-error';

interface LoggableRequest {
  id?: string;
  method?: string;
  url?: string;
  /** The client by TRUST_PROXY (Fastify's request.ip), not the proxy in front of it. */
  ip?: string;
}

/**
 * The service's JSON logger. Fastify logs requests through it; Nest's Logger writes to it too. Every
 * line is scrubbed of credentials and digests on its way to `destination` (stdout by default).
 */
export function createRootLogger(level: string, destination?: pino.DestinationStream): Logger {
  const sink = destination ?? pino.destination({ dest: process.stdout.fd || 1, sync: false });
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      serializers: {
        req: (req: LoggableRequest) => ({ id: req.id, method: req.method, url: redactUrl(req.url), ip: req.ip }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        err: serializeError,
      },
    },
    scrubbingDestination(sink) as pino.DestinationStream,
  );
}

/** Nest's LoggerService over pino, so framework and application lines share one format. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly root: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: pino.Level, message: unknown, rest: unknown[]): void {
    const context = typeof rest.at(-1) === 'string' ? (rest.at(-1) as string) : undefined;
    if (message !== null && typeof message === 'object') {
      const text = typeof rest[0] === 'string' && rest.length > 1 ? rest[0] : undefined;
      this.root[level]({ context, ...(message as object) }, text);
      return;
    }
    const stack = level === 'error' && typeof rest[0] === 'string' && rest.length > 1 ? rest[0] : undefined;
    this.root[level]({ context, stack }, String(message));
  }
}
