import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestOrigin } from './socket-urls';

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The Host and X-Forwarded-Proto of the request, for building absolute socket URLs. */
export const CurrentRequestOrigin = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestOrigin => {
  const { headers } = ctx.switchToHttp().getRequest<{ headers: IncomingHttpHeaders }>();
  return { host: first(headers.host), forwardedProto: first(headers['x-forwarded-proto']) };
});
