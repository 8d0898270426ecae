import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ModelsModule } from '../models';
import { SessionEntity } from './entities/session.entity';
import { SessionAdmissionRepository } from './session-admission.repository';
import { SessionAdmissionService } from './session-admission.service';
import { SessionExpirySweeper } from './session-expiry.sweeper';
import { RegisteredSessionTerminator, SESSION_TERMINATOR } from './session-terminator';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

@Module({
  imports: [TypeOrmModule.forFeature([SessionEntity]), ModelsModule],
  controllers: [SessionsController],
  providers: [
    SessionsRepository,
    SessionAdmissionRepository,
    SessionAdmissionService,
    SessionsService,
    SessionExpirySweeper,
    RegisteredSessionTerminator,
    { provide: SESSION_TERMINATOR, useExisting: RegisteredSessionTerminator },
  ],
  exports: [SessionsService, SessionAdmissionService, RegisteredSessionTerminator, SESSION_TERMINATOR],
})
export class SessionsModule {}
