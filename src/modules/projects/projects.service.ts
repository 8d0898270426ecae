import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig, StartingApiKey } from '../../config/app-config';
import { AppError } from '../../platform/errors/app-error';
import { newId, sha256Hex } from '../../platform/ids';
import { CredentialSigner } from '../auth';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyEntity } from './entities/api-key.entity';
import { ProjectEntity } from './entities/project.entity';
import { ProjectLedgerRepository } from './project-ledger.repository';
import { ProjectsRepository } from './projects.repository';

export interface CreatedKey {
  key: ApiKeyEntity;
  /** The only time the plaintext key exists outside the caller's hands. */
  secret: string;
}

export interface RevokedKey {
  key: ApiKeyEntity;
  /** Unused client secrets the key had issued, revoked with it. */
  revokedSecrets: number;
}

/** Projects and their API keys: what the console would manage (here, the CLI and first start). */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly keys: ApiKeysRepository,
    private readonly ledger: ProjectLedgerRepository,
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly signer: CredentialSigner,
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
    actor = 'system',
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
      // The history starts with the starting credit, so it always adds up to the balance.
      const start = { projectId: project.id, actor };
      await this.ledger.record(manager, {
        ...start,
        kind: 'credit_added',
        amountMicros: project.balanceMicros,
        detail: { note: 'starting credit' },
      });
      await this.ledger.record(manager, { ...start, kind: 'key_created', detail: keyDetail(entity) });
      return { project: await manager.findOneByOrFail(ProjectEntity, { id: project.id }), key: entity, secret };
    };
    return within ? create(within) : this.dataSource.transaction(create);
  }

  async createKey(projectId: string, name: string, actor = 'system'): Promise<CreatedKey> {
    await this.getProject(projectId);
    const { entity, secret } = this.buildKey(projectId, name);
    return this.dataSource.transaction(async (manager) => {
      const key = await manager.save(entity);
      await this.ledger.record(manager, { projectId, kind: 'key_created', detail: keyDetail(key), actor });
      return { key, secret };
    });
  }

  async listKeys(projectId: string): Promise<ApiKeyEntity[]> {
    await this.getProject(projectId);
    return this.keys.listByProject(projectId);
  }

  /**
   * Revokes the key: requests with it fail with key_revoked, the client secrets it issued and that are
   * still unused stop working (their sessions close), and sessions it opened that are live end within
   * a heartbeat (SocketSessions), closed with detail key_revoked and their usage recorded. Idempotent.
   */
  async revokeKey(keyId: string, actor = 'system'): Promise<RevokedKey> {
    const key = await this.keys.findById(keyId);
    if (!key) throw new AppError('not_found', `No API key ${keyId}`);
    const revokedSecrets = await this.dataSource.transaction(async (manager) => {
      const { newly, secrets } = await this.keys.revokeWithSecrets(manager, keyId);
      if (newly || secrets > 0) {
        const detail = { ...keyDetail(key), revoked_secrets: secrets };
        await this.ledger.record(manager, { projectId: key.projectId, kind: 'key_revoked', detail, actor });
      }
      return secrets;
    });
    return { key: (await this.keys.findById(keyId))!, revokedSecrets };
  }

  /**
   * A new key with the old one's name (unless given), and the old one revoked, in one transaction. No
   * grace period: a caller wanting both keys to work for a while creates the new key, deploys it and
   * then revokes the old one.
   */
  async rotateKey(keyId: string, actor = 'system', name?: string): Promise<CreatedKey & { revoked: RevokedKey }> {
    const old = await this.keys.findById(keyId);
    if (!old) throw new AppError('not_found', `No API key ${keyId}`);
    if (old.revokedAt) throw new AppError('key_revoked', `API key ${keyId} is already revoked; create a new one`);
    const { entity, secret } = this.buildKey(old.projectId, name ?? old.name);
    return this.dataSource.transaction(async (manager) => {
      const key = await manager.save(entity);
      const { secrets } = await this.keys.revokeWithSecrets(manager, keyId);
      await this.ledger.record(manager, {
        projectId: old.projectId,
        kind: 'key_rotated',
        detail: { ...keyDetail(old), new_key_id: key.id, new_key_prefix: key.keyPrefix, revoked_secrets: secrets },
        actor,
      });
      const revoked = await manager.findOneByOrFail(ApiKeyEntity, { id: keyId });
      return { key, secret, revoked: { key: revoked, revokedSecrets: secrets } };
    });
  }

  private buildKey(projectId: string, name: string): { entity: ApiKeyEntity; secret: string } {
    const secret = this.signer.mint('wk_');
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

const keyDetail = (key: ApiKeyEntity) => ({ key_id: key.id, key_name: key.name, key_prefix: key.keyPrefix });
