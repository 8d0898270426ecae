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
   * Looks a key up by its hash and takes one token from its request bucket, in one statement: one
   * round trip per authenticated request, and correct across instances because the row is locked by
   * the UPDATE (the SET expressions see the latest committed bucket).
   */
  async checkAndConsume(keyHash: string, capacity: number, refillPerSecond: number): Promise<KeyCheck | null> {
    const available = `LEAST($2::float8, COALESCE(rl_tokens, $2::float8)
      + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - COALESCE(rl_updated_at, clock_timestamp()))) * $3::float8)`;
    // TypeORM answers an UPDATE … RETURNING with [rows, rowCount].
    const [rows]: [{ id: string; project_id: string; revoked: boolean; allowed: boolean; tokens: number }[], number] =
      await this.keys.query(
        `UPDATE api_keys SET
           rl_allowed = ${available} >= 1,
           rl_tokens = ${available} - CASE WHEN ${available} >= 1 THEN 1 ELSE 0 END,
           rl_updated_at = clock_timestamp(),
           last_used_at = clock_timestamp()
         WHERE key_hash = $1
         RETURNING id, project_id, revoked_at IS NOT NULL AS revoked, rl_allowed AS allowed, rl_tokens AS tokens`,
        [keyHash, capacity, refillPerSecond],
      );
    const row = rows[0];
    if (!row) return null;
    return { id: row.id, projectId: row.project_id, revoked: row.revoked, allowed: row.allowed, tokens: row.tokens };
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
