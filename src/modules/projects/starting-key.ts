import type { EntityManager } from 'typeorm';
import type { StartingApiKey } from '../../config/app-config';
import { ApiKeyEntity } from './entities/api-key.entity';
import { ProjectEntity } from './entities/project.entity';
import type { ProjectsService } from './projects.service';

/** What provisioning the configured starting key did. */
export type StartingKeyOutcome =
  | { kind: 'project_created'; projectId: string; keyId: string }
  | { kind: 'key_added'; projectId: string; keyId: string }
  | { kind: 'present'; keyId: string; revoked: boolean };

/**
 * Makes the configured starting key (STARTING_API_KEY, e.g. from a Kubernetes Secret) exist, stored only
 * as its hash, idempotently: on an empty database it is the first project's key; if the key is already
 * stored nothing changes (a revoked one stays revoked); otherwise, e.g. after the Secret was rotated, it
 * is added to the oldest project beside the keys it has. Runs under the caller's table lock, so replicas
 * starting together provision it once.
 */
export async function provisionStartingKey(
  manager: EntityManager,
  key: StartingApiKey,
  projects: ProjectsService,
): Promise<StartingKeyOutcome> {
  const existing = await manager.findOne(ApiKeyEntity, { where: { keyHash: key.hash } });
  if (existing) return { kind: 'present', keyId: existing.id, revoked: existing.revokedAt !== null };
  const [oldest] = await manager.find(ProjectEntity, { order: { createdAt: 'ASC', id: 'ASC' }, take: 1 });
  if (!oldest) {
    const created = await projects.createProject('Default project', manager, undefined, key);
    return { kind: 'project_created', projectId: created.project.id, keyId: created.key.id };
  }
  const added = await manager.save(projects.keyEntity(oldest.id, 'starting key', key));
  return { kind: 'key_added', projectId: oldest.id, keyId: added.id };
}
