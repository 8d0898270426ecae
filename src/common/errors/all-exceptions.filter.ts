import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderError } from './error-renderer';

/** The one place errors become HTTP answers (registered as APP_FILTER). */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const rendered = renderError(exception, request.id);
    if (rendered.unexpected) {
      this.logger.error({ err: exception, requestId: request.id }, 'unhandled error');
    }
    void reply.status(rendered.status).headers(rendered.headers).send(rendered.body);
  }
}
