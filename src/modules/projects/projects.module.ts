import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyEntity } from './entities/api-key.entity';
import { ProjectEntity } from './entities/project.entity';
import { FirstStartService } from './first-start.service';
import { ProjectController } from './project.controller';
import { ProjectView } from './project.view';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

@Module({
  imports: [TypeOrmModule.forFeature([ProjectEntity, ApiKeyEntity])],
  controllers: [ProjectController],
  providers: [ProjectsRepository, ApiKeysRepository, ProjectsService, ProjectView, FirstStartService],
  exports: [ProjectsService, ProjectsRepository, ApiKeysRepository],
})
export class ProjectsModule {}
