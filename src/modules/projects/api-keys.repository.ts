import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { ApiKeyEntity } from './entities/api-key.entity';

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  insert(key: Pick<ApiKeyEntity, 'id' | 'projectId' | 'name' | 'keyHash' | 'keyPrefix'>): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create({ ...key, revokedAt: null, lastUsedAt: null }));
  }

  listByProject(projectId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { projectId }, order: { createdAt: 'ASC' } });
  }

  /**
   * Revokes the key and every client secret it issued that is not used yet; their pending sessions
   * stop counting toward the limit (closed, close_requested). Locks secrets before sessions, in the
   * order redemption takes them: a redemption that won its secret first leaves an active session,
   * which the heartbeat of its socket's holder ends. Returns whether the key was newly revoked and
   * how many secrets were.
   */
  async revokeWithSecrets(manager: EntityManager, id: string): Promise<{ newly: boolean; secrets: number }> {
    const result = await manager.update(ApiKeyEntity, { id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    const [secrets] = (await manager.query(
      `UPDATE client_secrets c SET revoked_at = now()
         FROM sessions s
        WHERE s.id = c.session_id AND s.api_key_id = $1 AND s.status = 'pending'
          AND c.used_at IS NULL AND c.revoked_at IS NULL
       RETURNING c.session_id`,
      [id],
    )) as [{ session_id: string }[], number];
    if (secrets.length > 0) {
      await manager.query(
        `UPDATE sessions SET
           status = CASE WHEN expires_at <= now() THEN 'expired' ELSE 'closed' END,
           close_reason = CASE WHEN expires_at > now() THEN 'close_requested' ELSE close_reason END,
           ended_at = CASE WHEN expires_at > now() THEN now() ELSE ended_at END
         WHERE id = ANY($1) AND status = 'pending'`,
        [secrets.map((s) => s.session_id)],
      );
    }
    return { newly: (result.affected ?? 0) > 0, secrets: secrets.length };
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { id } });
  }
}
