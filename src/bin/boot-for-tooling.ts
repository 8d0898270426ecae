import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '../config/app-config';
import { DatabaseLocation, DatabaseModule } from '../platform/database/database.module';

/** Tools that need a database but no state (OpenAPI generation) get a throwaway embedded one. */
export async function locateToolingDatabase(
  config: AppConfig,
): Promise<{ location: DatabaseLocation; cleanup(): void }> {
  if (config.databaseUrl) return { location: await DatabaseModule.locate(config), cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'continuum-tool-'));
  const scratch = AppConfig.fromProcessEnv({ DATA_DIR: dir });
  return {
    location: await DatabaseModule.locate(scratch),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
