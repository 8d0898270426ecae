import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthService, AuthRequest } from './auth.service';
import { ApiKeyPrincipal } from './principal';
import { IS_PUBLIC } from './public.decorator';

/** Global guard (APP_GUARD): a route without @Public() needs a valid, unrevoked API key. */
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
    const request = context.switchToHttp().getRequest<AuthRequest & { principal?: ApiKeyPrincipal }>();
    request.principal = await this.auth.authenticateApiKey(request);
    return true;
  }
}
