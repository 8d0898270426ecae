import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorEnvelope } from '../errors/app-error';
import { CODE_FOR_STATUS, type ErrorCode } from '../errors/error-codes';
import { newId } from '../ids';

/**
 * Errors Fastify answers without reaching Nest's filter, in the ErrorEnvelope like every other error.
 * `frameworkErrors`: a URL the router cannot decode (`%ED%A0%80`), a path parameter over its length.
 */
export function answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const status = (error as { statusCode?: number }).statusCode ?? 400;
  const code: ErrorCode = CODE_FOR_STATUS[status] ?? 'invalid_request';
  const message = status === 400 ? 'The URL is not valid' : (STATUS_CODES[status] ?? 'Bad request');
  void reply
    .code(CODE_FOR_STATUS[status] ? status : 400)
    .header('x-request-id', request.id)
    .send(errorEnvelope(code, message, request.id));
}

/** What Node's HTTP parser refuses before there is a request: headers too large, a malformed request, a timeout. */
const CLIENT_ERRORS: Record<string, { status: number; code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', message: 'The request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', message: 'The request took too long to arrive' },
};
const MALFORMED = { status: 400, code: 'invalid_request' as ErrorCode, message: 'The HTTP request is malformed' };

/**
 * Fastify's `clientErrorHandler`: writes the ErrorEnvelope (with a fresh `request_id`, also in
 * `x-request-id`) straight to the socket, since no request object exists yet, and closes it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, code, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
  const requestId = newId('req');
  const body = JSON.stringify(errorEnvelope(code, message, requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
