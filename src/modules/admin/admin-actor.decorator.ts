import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/** Who the AdminGuard says is acting, for the project's history. */
export const AdminActor = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string =>
    context.switchToHttp().getRequest<{ adminActor?: string }>().adminActor ?? 'admin-api',
);
