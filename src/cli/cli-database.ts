import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../config/app-config';
import { DatabaseLocation } from '../platform/database/database.module';
import { EmbeddedPostgres } from '../platform/database/embedded-postgres';

/** A failure the operator can fix: printed as is, without a stack. */
export class CliError extends Error {}

/** Where the CLI's data lives, for `where` and for error messages; never a password. */
export function describeDatabase(config: AppConfig) {
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    if (url.password) url.password = '***';
    return { database: 'postgresql', url: url.toString() };
  }
  const cluster = join(config.dataDir, 'postgres');
  return { database: 'embedded', data_dir: config.dataDir, exists: existsSync(cluster) };
}

/**
 * The service's database: DATABASE_URL, or the embedded one in DATA_DIR. A DATA_DIR holding no
 * database is created only when asked (`init`), so a command run from the wrong folder says so instead
 * of quietly starting an empty database there. A DATA_DIR held by a running service is refused with
 * what to do, since the embedded database serves one process at a time.
 */
export async function openCliDatabase(config: AppConfig, init: boolean): Promise<DatabaseLocation> {
  if (config.databaseUrl) return new DatabaseLocation(config.databaseUrl, null);
  const cluster = join(config.dataDir, 'postgres');
  if (!existsSync(cluster) && !init) {
    throw new CliError(
      `No Continuum database in DATA_DIR=${config.dataDir}.\n` +
        `Run the command with the service's DATA_DIR (or its DATABASE_URL), ` +
        `or pass --init to create a new database there.`,
    );
  }
  try {
    // No logger: the host's lines are debug noise here, and a failure carries its last lines anyway.
    const embedded = await EmbeddedPostgres.start({ dataDir: cluster });
    return new DatabaseLocation(embedded.url, embedded);
  } catch (error) {
    const owner = /in use by process (\d+)/.exec(error instanceof Error ? error.message : '');
    if (!owner) throw error;
    throw new CliError(
      `The embedded database in DATA_DIR=${config.dataDir} is in use by process ${owner[1]} ` +
        `(a running Continuum service?).\nThe embedded database serves one process at a time: stop that ` +
        `process and run the command again. To manage a running service, run it on PostgreSQL ` +
        `(DATABASE_URL) and point the CLI at the same DATABASE_URL.`,
    );
  }
}
