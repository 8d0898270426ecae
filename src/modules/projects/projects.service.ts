import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig, StartingApiKey } from '../../config/app-config';
import { AppError } from '../../common/errors/app-error';
import { newApiKey, newId, sha256Hex } from '../../common/ids';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyEntity } from './entities/api-key.entity';
import { ProjectEntity } from './entities/project.entity';
import { ProjectsRepository } from './projects.repository';

export interface CreatedKey {
  key: ApiKeyEntity;
  /** The only time the plaintext key exists outside the caller's hands. */
  secret: string;
}

/** Projects and their API keys: what the console would manage (here, the CLI and first start). */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly keys: ApiKeysRepository,
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {}

  async getProject(id: string): Promise<ProjectEntity> {
    const project = await this.projects.findById(id);
    if (!project) throw new AppError('not_found', `No project ${id}`);
    return project;
  }

  listProjects(): Promise<ProjectEntity[]> {
    return this.projects.list();
  }

  /**
   * A new project starts with the configured credit (10 USD by default) and one key: a new one, or one
   * given already hashed (the configured starting key; `secret` is then empty).
   */
  async createProject(
    name: string,
    within?: EntityManager,
    given?: StartingApiKey,
  ): Promise<{ project: ProjectEntity } & CreatedKey> {
    const create = async (manager: EntityManager) => {
      const project = manager.create(ProjectEntity, {
        id: newId('proj'),
        name,
        balanceMicros: this.config.startingCreditMicros,
      });
      await manager.save(project);
      const { entity, secret } = given
        ? { entity: this.keyEntity(project.id, 'starting key', given), secret: '' }
        : this.buildKey(project.id, 'default');
      await manager.save(entity);
      return { project, key: entity, secret };
    };
    return within ? create(within) : this.dataSource.transaction(create);
  }

  async createKey(projectId: string, name: string): Promise<CreatedKey> {
    await this.getProject(projectId);
    const { entity, secret } = this.buildKey(projectId, name);
    return { key: await this.keys.insert(entity), secret };
  }

  listKeys(projectId: string): Promise<ApiKeyEntity[]> {
    return this.keys.listByProject(projectId);
  }

  async revokeKey(keyId: string): Promise<ApiKeyEntity> {
    const key = await this.keys.findById(keyId);
    if (!key) throw new AppError('not_found', `No API key ${keyId}`);
    await this.keys.revoke(keyId);
    return (await this.keys.findById(keyId))!;
  }

  private buildKey(projectId: string, name: string): { entity: ApiKeyEntity; secret: string } {
    const secret = newApiKey();
    return {
      entity: this.keyEntity(projectId, name, { hash: sha256Hex(secret), prefix: secret.slice(0, 10) }),
      secret,
    };
  }

  keyEntity(projectId: string, name: string, key: StartingApiKey): ApiKeyEntity {
    return Object.assign(new ApiKeyEntity(), {
      id: newId('key'),
      projectId,
      name,
      keyHash: key.hash,
      keyPrefix: key.prefix,
      revokedAt: null,
      lastUsedAt: null,
    });
  }
}
