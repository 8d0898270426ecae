import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CredentialSigningModule } from '../auth';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyEntity } from './entities/api-key.entity';
import { LedgerEntryEntity } from './entities/ledger-entry.entity';
import { ProjectEntity } from './entities/project.entity';
import { FirstStartService } from './first-start.service';
import { ProjectControlsService } from './project-controls.service';
import { ProjectLedgerRepository } from './project-ledger.repository';
import { ProjectController } from './project.controller';
import { ProjectView } from './project.view';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

@Module({
  imports: [TypeOrmModule.forFeature([ProjectEntity, ApiKeyEntity, LedgerEntryEntity]), CredentialSigningModule],
  controllers: [ProjectController],
  providers: [
    ProjectsRepository,
    ApiKeysRepository,
    ProjectLedgerRepository,
    ProjectsService,
    ProjectControlsService,
    ProjectView,
    FirstStartService,
  ],
  exports: [ProjectsService, ProjectControlsService, ProjectView, ProjectsRepository, ApiKeysRepository],
})
export class ProjectsModule {}
