import { ArgumentsHost, Catch, ExceptionFilter, Inject, Logger, Optional } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderError } from './error-renderer';

/**
 * Settles what a failed request answers before it is rendered: the auth module's, which checks a
 * key the route had not checked yet and counts authentication refusals against the client's address.
 */
export interface RefusalJudge {
  judge(exception: unknown, request: FastifyRequest): Promise<unknown>;
}

export const REFUSAL_JUDGE = Symbol('REFUSAL_JUDGE');

/** The one place errors become HTTP answers (registered as APP_FILTER). */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(@Optional() @Inject(REFUSAL_JUDGE) private readonly judge?: RefusalJudge) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (!this.judge) return this.send(exception, request, reply);
    void this.judge.judge(exception, request).then((judged) => this.send(judged, request, reply));
  }

  private send(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const rendered = renderError(exception, request.id);
    if (rendered.unexpected) {
      this.logger.error({ err: exception, requestId: request.id }, 'unhandled error');
    }
    void reply.status(rendered.status).headers(rendered.headers).send(rendered.body);
  }
}
