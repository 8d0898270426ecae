import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MeterEventEntity } from './entities/meter-event.entity';
import { ModelsModule } from '../models';
import { MeterEventsRepository } from './meter-events.repository';
import { MeterService } from './meter.service';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/** Metering (the socket runtime's write path) and the usage API. */
@Module({
  imports: [TypeOrmModule.forFeature([MeterEventEntity]), ModelsModule],
  controllers: [UsageController],
  providers: [MeterEventsRepository, UsageRepository, MeterService, UsageService],
  exports: [MeterService],
})
export class UsageModule {}
