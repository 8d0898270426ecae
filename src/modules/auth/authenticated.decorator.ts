import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiKeyAuth } from '../../platform/openapi/api-standard-errors.decorator';

export const ROUTE_AUTH = 'continuum:route-auth';

/**
 * How the global guard lets a request through. A route (or its controller) with no mode needs an API
 * key: deny by default.
 * - `api_key`: a valid, unrevoked API key, looked up before the handler runs.
 * - `api_key_in_statement`: the same key, but the guard only reads it (no database) and the handler
 *   settles it in its own statement, so the request costs one round trip instead of two. Errors before
 *   that statement answer for the key first (the refusal judge), and a success with the key never
 *   settled is refused (installHttpHooks). Not an interceptor: Nest binds an AsyncResource per
 *   interceptor call, which cost ~10% of such a route's CPU on Node 20.
 * - `admin`: the admin token (ADMIN_API_KEY_SHA256), never an API key.
 * - `public`: no credential.
 */
export type RouteAuthMode = 'api_key' | 'api_key_in_statement' | 'admin' | 'public';

export interface AuthenticatedOptions {
  /** The admin token instead of an API key. */
  admin?: true;
  /** The handler checks the API key in its own statement, from what @Auth() gives it (a PresentedApiKey). */
  checksKeyItself?: true;
}

/**
 * The route's credential, for the guard and for the OpenAPI document at once. @Auth() gives the handler
 * what the credential proved: an ApiKeyPrincipal, a PresentedApiKey or an AdminPrincipal.
 */
export const Authenticated = (options: AuthenticatedOptions = {}): ClassDecorator & MethodDecorator => {
  if (options.admin) return SetMetadata(ROUTE_AUTH, 'admin' satisfies RouteAuthMode);
  const mode: RouteAuthMode = options.checksKeyItself ? 'api_key_in_statement' : 'api_key';
  return applyDecorators(SetMetadata(ROUTE_AUTH, mode), ApiKeyAuth());
};

/**
 * Opts a route out of authentication. Its own decorator rather than an option of @Authenticated, which
 * would read as "authenticated, publicly": a route without a credential should say so in one word.
 */
export const Public = (): ClassDecorator & MethodDecorator => SetMetadata(ROUTE_AUTH, 'public' satisfies RouteAuthMode);
