import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MeterEventEntity } from './entities/meter-event.entity';
import { ModelsModule } from '../models';
import { SessionsModule } from '../sessions';
import { MeterEventsRepository } from './meter-events.repository';
import { MeterService } from './meter.service';
import { PendingUsageWriter } from './pending-usage.writer';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/** Metering (the socket runtime's write path, kept through a database outage and written back) and the usage API. */
@Module({
  imports: [TypeOrmModule.forFeature([MeterEventEntity]), ModelsModule, SessionsModule],
  controllers: [UsageController],
  providers: [MeterEventsRepository, UsageRepository, MeterService, PendingUsageWriter, UsageService],
  exports: [MeterService, PendingUsageWriter],
})
export class UsageModule {}
