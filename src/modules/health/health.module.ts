import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { LifecycleState } from './lifecycle-state';

@Module({ controllers: [HealthController], providers: [LifecycleState], exports: [LifecycleState] })
export class HealthModule {}
