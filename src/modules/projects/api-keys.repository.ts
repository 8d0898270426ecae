import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ApiKeyEntity } from './entities/api-key.entity';

export interface KeyCheck {
  id: string;
  projectId: string;
  revoked: boolean;
  allowed: boolean;
  tokens: number;
}

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /**
   * Looks a key up by its hash and takes one token from its request bucket: one round trip per
   * authenticated request, exact across instances (the row is locked), and not waiting for the WAL
   * flush (migration RequestTokens explains why).
   */
  async checkAndConsume(keyHash: string, capacity: number, refillPerSecond: number): Promise<KeyCheck | null> {
    const rows: { o_id: string; o_project_id: string; o_revoked: boolean; o_allowed: boolean; o_tokens: number }[] =
      await this.keys.query('SELECT * FROM continuum_take_request_token($1, $2, $3)', [
        keyHash,
        capacity,
        refillPerSecond,
      ]);
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.o_id,
      projectId: row.o_project_id,
      revoked: row.o_revoked,
      allowed: row.o_allowed,
      tokens: row.o_tokens,
    };
  }

  insert(key: Pick<ApiKeyEntity, 'id' | 'projectId' | 'name' | 'keyHash' | 'keyPrefix'>): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create({ ...key, revokedAt: null, lastUsedAt: null }));
  }

  listByProject(projectId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { projectId }, order: { createdAt: 'ASC' } });
  }

  async revoke(id: string): Promise<boolean> {
    const result = await this.keys.update({ id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { id } });
  }
}
