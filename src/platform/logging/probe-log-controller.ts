import { LogController } from 'fastify';

/** Kubernetes probes arrive every few seconds per pod: their request lines are debug, not info. */
const PROBE = /^\/(healthz|readyz)(\?|$)/;

type Request = Parameters<LogController['incomingRequest']>[0];
type Reply = Parameters<LogController['requestCompleted']>[2];

/** Fastify's request logging, with probe requests (`/healthz`, `/readyz`) at debug level. */
export class ProbeQuietLogController extends LogController {
  override incomingRequest(request: Request, reply: Reply): void {
    if (PROBE.test(request.url)) request.log.debug({ req: request }, 'incoming request');
    else super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: Request, reply: Reply): void {
    if (!error && PROBE.test(request.url)) {
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
    } else super.requestCompleted(error, request, reply);
  }
}
