import { CallsController } from './calls.controller';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ModelsModule } from '../models';
import { SessionEntity } from './entities/session.entity';
import { HeldSessionsRepository } from './held-sessions.repository';
import { SessionAdmissionRepository } from './session-admission.repository';
import { SessionAdmissionService } from './session-admission.service';
import { SessionEnds } from './session-ends';
import { SessionExpirySweeper } from './session-expiry.sweeper';
import { SessionReaper } from './session-reaper';
import { SessionReaperRepository } from './session-reaper.repository';
import { SessionSchedule } from './session-schedule';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { sessionEndSignalsProvider } from './signals/session-end-signals.provider';

/**
 * The sole writer of the `sessions` table (admission, activation, heartbeat, close, expiry, reaper,
 * DELETE), but for two statements that write it together with their own aggregate's rows: a client
 * secret's redemption (client-secrets) and the meter batches' totals (usage, in a database function).
 */
@Module({
  imports: [TypeOrmModule.forFeature([SessionEntity]), ModelsModule],
  controllers: [SessionsController, CallsController],
  providers: [
    SessionsRepository,
    HeldSessionsRepository,
    SessionReaperRepository,
    SessionAdmissionRepository,
    SessionAdmissionService,
    SessionsService,
    sessionEndSignalsProvider,
    SessionEnds,
    SessionExpirySweeper,
    SessionReaper,
    SessionSchedule,
  ],
  exports: [SessionsService, SessionAdmissionService, SessionEnds],
})
export class SessionsModule {}
