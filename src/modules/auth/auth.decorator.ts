import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { AuthenticatedRequest, RouteAuth } from './principal';

/**
 * What the route's credential proved, as the guard left it: the handler names the type its mode gives
 * (ApiKeyPrincipal, PresentedApiKey or AdminPrincipal; see @Authenticated).
 */
export const Auth = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): RouteAuth => ctx.switchToHttp().getRequest<AuthenticatedRequest>().auth,
);
