import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { ApiKeyPrincipal } from './principal';

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): ApiKeyPrincipal =>
    ctx.switchToHttp().getRequest<{ principal: ApiKeyPrincipal }>().principal,
);
