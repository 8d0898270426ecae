import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { PresentedApiKey } from './principal';

export const CHECKS_API_KEY_ITSELF = 'continuum:checks-api-key-itself';

/**
 * The route checks the caller's API key inside its own database statement, so the request costs one
 * round trip instead of two. The guard only reads the key (no database); the handler receives it
 * through @PresentedKey() and must pass it to a statement that settles it. Errors before that
 * statement are answered for the key first (AllExceptionsFilter), and a success with the key never
 * settled is refused (installHttpHooks). Not an interceptor: Nest binds an AsyncResource per
 * interceptor call, which cost ~10% of this route's CPU on Node 20.
 */
export const ChecksApiKeyItself = (): MethodDecorator => SetMetadata(CHECKS_API_KEY_ITSELF, true);

export const PresentedKey = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): PresentedApiKey =>
    ctx.switchToHttp().getRequest<{ presentedKey: PresentedApiKey }>().presentedKey,
);
