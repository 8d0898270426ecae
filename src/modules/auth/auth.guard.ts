import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthService, AuthRequest } from './auth.service';
import { CHECKS_API_KEY_ITSELF } from './checks-api-key-itself.decorator';
import type { ApiKeyPrincipal, PresentedApiKey } from './principal';
import { IS_PUBLIC } from './public.decorator';

/**
 * Global guard (APP_GUARD): a route without @Public() needs a valid, unrevoked API key. A route marked
 * @ChecksApiKeyItself() gets the key read but not yet looked up, and settles it in its own statement.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly auth: AuthService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const request = context
      .switchToHttp()
      .getRequest<AuthRequest & { principal?: ApiKeyPrincipal; presentedKey?: PresentedApiKey }>();
    if (this.reflector.get<boolean>(CHECKS_API_KEY_ITSELF, context.getHandler())) {
      request.presentedKey = this.auth.presentApiKey(request);
      return true;
    }
    request.principal = await this.auth.authenticateApiKey(request);
    return true;
  }
}
