import { Module } from '@nestjs/common';
import { ModelsModule } from '../models/models.module';
import { SessionsModule } from '../sessions/sessions.module';
import { CAPACITY_GATE, RegisteredCapacityGate } from './capacity-gate';
import { ClientSecretsController } from './client-secrets.controller';
import { ClientSecretsRepository } from './client-secrets.repository';
import { ClientSecretsService } from './client-secrets.service';

@Module({
  imports: [SessionsModule, ModelsModule],
  controllers: [ClientSecretsController],
  providers: [
    ClientSecretsRepository,
    ClientSecretsService,
    RegisteredCapacityGate,
    { provide: CAPACITY_GATE, useExisting: RegisteredCapacityGate },
  ],
  exports: [ClientSecretsService, RegisteredCapacityGate, CAPACITY_GATE],
})
export class ClientSecretsModule {}
