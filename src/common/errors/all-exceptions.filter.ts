import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FailedAuthThrottle } from '../../modules/auth/failed-auth.throttle';
import type { PresentedApiKey } from '../../modules/auth/principal';
import { renderError } from './error-renderer';

/** The one place errors become HTTP answers (registered as APP_FILTER). */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly throttle: FailedAuthThrottle) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest & { presentedKey?: PresentedApiKey }>();
    const reply = http.getResponse<FastifyReply>();
    // On a route that checks its key in its own statement, a request that failed before that
    // statement (a 422, say) answers for the key first, as every other route does: a bad key with
    // its refusal, a good one with its rate-limit headers and then this error.
    if (request.presentedKey) {
      request.presentedKey.check().then(
        () => this.answer(exception, request, reply),
        (refusal: unknown) => this.answer(refusal, request, reply),
      );
      return;
    }
    this.answer(exception, request, reply);
  }

  /** An authentication refusal first counts against the client's address (and may become a 429). */
  private answer(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    void this.throttle.judge(exception, request.ip).then((judged) => this.send(judged, request, reply));
  }

  private send(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const rendered = renderError(exception, request.id);
    if (rendered.unexpected) {
      this.logger.error({ err: exception, requestId: request.id }, 'unhandled error');
    }
    void reply.status(rendered.status).headers(rendered.headers).send(rendered.body);
  }
}
