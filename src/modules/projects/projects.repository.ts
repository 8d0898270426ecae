import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ProjectEntity } from './entities/project.entity';

@Injectable()
export class ProjectsRepository {
  constructor(@InjectRepository(ProjectEntity) private readonly projects: Repository<ProjectEntity>) {}

  findById(id: string): Promise<ProjectEntity | null> {
    return this.projects.findOne({ where: { id } });
  }

  insert(project: Pick<ProjectEntity, 'id' | 'name' | 'balanceMicros'>): Promise<ProjectEntity> {
    return this.projects.save(this.projects.create(project));
  }

  count(): Promise<number> {
    return this.projects.count();
  }

  list(): Promise<ProjectEntity[]> {
    return this.projects.find({ order: { createdAt: 'ASC' } });
  }
}
