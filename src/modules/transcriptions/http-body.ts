import type { FastifyReply } from 'fastify';
import { AppError } from '../../platform/errors/app-error';
import { StreamedBody, UnreadableBody } from '../../platform/http/request-body';

/** The route's upload, or the reason it has none (the parser hands over what it could not read). */
export function streamedUpload(body: unknown, expected: string): StreamedBody {
  if (body instanceof UnreadableBody) throw body.error;
  if (
    body instanceof StreamedBody &&
    (expected !== 'multipart/form-data' || /^multipart\/form-data/i.test(body.contentType))
  ) {
    return body;
  }
  throw new AppError('unsupported_media_type', `Send the body as ${expected}`);
}

/** Aborted when the client closes its connection before the answer is sent. */
export function untilClientLeaves(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}
