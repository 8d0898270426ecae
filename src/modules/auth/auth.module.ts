import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ProjectsModule } from '../projects/projects.module';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';

@Module({
  imports: [ProjectsModule],
  providers: [AuthService, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [AuthService],
})
export class AuthModule {}
