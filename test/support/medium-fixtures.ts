import type { DataSource } from 'typeorm';
import { newApiKey, newId, sha256Hex } from '../../src/platform/ids';

/**
 * A project with one key, written as the projects module leaves them, for medium suites of modules
 * that only read projects (the projects module's own suite creates them through its service).
 */
export async function insertProject(
  dataSource: DataSource,
  over: { balanceMicros?: number; requestsPerMinute?: number | null } = {},
): Promise<{ projectId: string; keyId: string; apiKey: string }> {
  const projectId = newId('proj');
  const keyId = newId('key');
  const apiKey = newApiKey();
  await dataSource.query(
    `INSERT INTO projects (id, name, balance_micros, requests_per_minute) VALUES ($1, 'fixture', $2, $3)`,
    [projectId, over.balanceMicros ?? 10_000_000, over.requestsPerMinute ?? null],
  );
  await dataSource.query(
    `INSERT INTO api_keys (id, project_id, name, key_hash, key_prefix) VALUES ($1, $2, 'default', $3, $4)`,
    [keyId, projectId, sha256Hex(apiKey), apiKey.slice(0, 10)],
  );
  return { projectId, keyId, apiKey };
}
