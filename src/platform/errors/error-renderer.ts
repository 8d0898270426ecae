import { HttpException } from '@nestjs/common';
import { DATABASE_RETRY_MS, isDatabaseConnectionError } from '../database/database-availability';
import { AppError, errorEnvelope, retryAfterHeader } from './app-error';
import { CODE_FOR_STATUS } from './error-codes';
import { RequestValidationError } from './validation-error';

export interface RenderedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** Only unexpected failures are logged with their stack. */
  unexpected: boolean;
}

interface FrameworkError {
  statusCode?: number;
  code?: string;
  message?: string;
}

/**
 * Maps anything thrown while serving a request to the public error shapes: ErrorEnvelope, or the
 * 422 HTTPValidationError. Framework errors (unknown route, wrong content type, oversized body) keep
 * their status and get the code of the table.
 */
export function renderError(error: unknown, requestId: string): RenderedError {
  if (error instanceof RequestValidationError) {
    return { status: 422, body: { detail: error.issues }, headers: {}, unexpected: false };
  }
  if (error instanceof AppError) {
    const headers: Record<string, string> = {};
    if (error.retryAfterMs !== null) headers['retry-after'] = retryAfterHeader(error.retryAfterMs);
    return {
      status: error.status,
      body: errorEnvelope(error.code, error.message, requestId, error),
      headers,
      unexpected: false,
    };
  }
  if (isDatabaseConnectionError(error)) {
    const unavailable = new AppError('database_unavailable', 'The database is unavailable; retry shortly', {
      retryAfterMs: DATABASE_RETRY_MS,
    });
    return renderError(unavailable, requestId);
  }
  const framework = error as FrameworkError;
  const status = error instanceof HttpException ? error.getStatus() : framework?.statusCode;
  if (status && status >= 400 && status !== 500 && CODE_FOR_STATUS[status]) {
    const message = status === 404 ? 'No such route' : (framework.message ?? 'Bad request');
    return {
      status,
      body: errorEnvelope(CODE_FOR_STATUS[status], message, requestId),
      headers: {},
      unexpected: false,
    };
  }
  return {
    status: 500,
    body: errorEnvelope(
      'internal_error',
      'The server failed to handle the request; quote request_id when reporting it.',
      requestId,
    ),
    headers: {},
    unexpected: true,
  };
}
