// Applies pending migrations to DATABASE_URL (a deploy step, e.g. an init container; the service also
// applies them at start). Under an advisory lock, so replicas starting together apply them once.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { dataSourceOptions } from '../platform/database/data-source-options';
import { runMigrationsOnce } from '../platform/database/migration-lock';

async function main(): Promise<void> {
  const config = AppConfig.fromProcessEnv();
  if (!config.databaseUrl) {
    process.stdout.write('migrate: no DATABASE_URL; the embedded database is migrated when the service starts\n');
    return;
  }
  const dataSource = await new DataSource(dataSourceOptions(config.databaseUrl, 1)).initialize();
  const applied = await runMigrationsOnce(dataSource, config.databaseUrl);
  process.stdout.write(
    `migrate: applied ${applied.length} migration(s)${applied.map((m) => `\n  ${m.name}`).join('')}\n`,
  );
  await dataSource.destroy();
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${String(error)}\n`);
  process.exit(1);
});
