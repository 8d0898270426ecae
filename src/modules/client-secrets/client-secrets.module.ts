import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClientSecretEntity } from './entities/client-secret.entity';
import { CredentialSigningModule } from '../auth';
import { HealthModule } from '../health';
import { ModelsModule } from '../models';
import { SessionsModule } from '../sessions';
import { ClientSecretsController } from './client-secrets.controller';
import { ClientSecretsRepository } from './client-secrets.repository';
import { ClientSecretsService } from './client-secrets.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([ClientSecretEntity]),
    SessionsModule,
    ModelsModule,
    HealthModule,
    CredentialSigningModule,
  ],
  controllers: [ClientSecretsController],
  providers: [ClientSecretsRepository, ClientSecretsService],
  exports: [ClientSecretsService],
})
export class ClientSecretsModule {}
