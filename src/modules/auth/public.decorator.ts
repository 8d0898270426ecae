import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'continuum:public';

/** Opts a route out of authentication. Everything else requires an API key (deny by default). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
