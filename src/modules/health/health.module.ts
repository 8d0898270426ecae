import { Global, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { LifecycleState } from './lifecycle-state';

@Global()
@Module({ controllers: [HealthController], providers: [LifecycleState], exports: [LifecycleState] })
export class HealthModule {}
