import { ERROR_STATUS, ErrorCode } from './error-codes';

export interface AppErrorOptions {
  param?: string | null;
  retryAfterMs?: number | null;
}

/** A failure the client can act on. Services throw these; the global filter renders the ErrorEnvelope. */
export class AppError extends Error {
  readonly param: string | null;
  readonly retryAfterMs: number | null;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.param = options.param ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export interface ErrorBody {
  code: string;
  message: string;
  param: string | null;
  request_id: string;
  retry_after_ms: number | null;
}

export function errorEnvelope(
  code: string,
  message: string,
  requestId: string,
  opts: AppErrorOptions = {},
): { error: ErrorBody } {
  return {
    error: {
      code,
      message,
      param: opts.param ?? null,
      request_id: requestId,
      retry_after_ms: opts.retryAfterMs ?? null,
    },
  };
}

/** `Retry-After` is whole seconds, rounded up. */
export function retryAfterHeader(retryAfterMs: number): string {
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}
