import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthAnswerHooks } from './auth-answer.hooks';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { KeyChecksRepository } from './key-checks.repository';
import { AuthFailuresRepository } from './auth-failures.repository';
import { FailedAuthThrottle } from './failed-auth.throttle';
import { AuthRefusalJudge } from './refusal-judge';
import { CredentialSigningModule } from './credential-signing.module';
import { REFUSAL_JUDGE } from '../../platform/errors/all-exceptions.filter';

@Module({
  imports: [CredentialSigningModule],
  providers: [
    AuthService,
    KeyChecksRepository,
    AuthFailuresRepository,
    FailedAuthThrottle,
    AuthAnswerHooks,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: REFUSAL_JUDGE, useClass: AuthRefusalJudge },
  ],
  exports: [AuthService, FailedAuthThrottle, REFUSAL_JUDGE],
})
export class AuthModule {}
