// Data source for the TypeORM CLI (`npm run migration:generate`): DATABASE_URL must point at a PostgreSQL.
// The service loads each module's entities itself; the CLI needs them listed.
import { DataSource } from 'typeorm';
import { AppConfig } from './src/config/app-config';
import { ClientSecretEntity } from './src/modules/client-secrets/entities/client-secret.entity';
import { ApiKeyEntity } from './src/modules/projects/entities/api-key.entity';
import { LedgerEntryEntity } from './src/modules/projects/entities/ledger-entry.entity';
import { ProjectEntity } from './src/modules/projects/entities/project.entity';
import { SessionEntity } from './src/modules/sessions/entities/session.entity';
import { MeterEventEntity } from './src/modules/usage/entities/meter-event.entity';
import { dataSourceOptions } from './src/platform/database/data-source-options';

const config = AppConfig.fromProcessEnv();
if (!config.databaseUrl) throw new Error('Set DATABASE_URL to generate migrations against a PostgreSQL server');

export default new DataSource(
  dataSourceOptions(config.databaseUrl, 2, [
    ProjectEntity,
    ApiKeyEntity,
    SessionEntity,
    ClientSecretEntity,
    MeterEventEntity,
    LedgerEntryEntity,
  ]),
);
