import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { authenticateAdmin } from './admin-token';
import { AuthService, AuthRequest } from './auth.service';
import { ROUTE_AUTH, type RouteAuthMode } from './authenticated.decorator';
import type { AuthenticatedRequest } from './principal';

/**
 * Global guard (APP_GUARD), deny by default: a route needs a valid, unrevoked API key unless it (or its
 * controller) says otherwise with @Authenticated or @Public. Sockets answer for their own credentials
 * in their handshakes.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly auth: AuthService,
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const mode =
      this.reflector.getAllAndOverride<RouteAuthMode | undefined>(ROUTE_AUTH, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'api_key';
    if (mode === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthRequest & AuthenticatedRequest>();
    if (mode === 'admin') request.auth = authenticateAdmin(request.headers, this.config.adminApiKeySha256);
    else if (mode === 'api_key_in_statement') request.auth = request.presentedKey = this.auth.presentApiKey(request);
    else request.auth = await this.auth.authenticateApiKey(request);
    return true;
  }
}
