// Data source for the TypeORM CLI (`npm run migration:generate`): DATABASE_URL must point at a PostgreSQL.
import { DataSource } from 'typeorm';
import { AppConfig } from './src/config/app-config';
import { dataSourceOptions } from './src/database/data-source-options';

const config = AppConfig.fromProcessEnv();
if (!config.databaseUrl) throw new Error('Set DATABASE_URL to generate migrations against a PostgreSQL server');

export default new DataSource(dataSourceOptions(config.databaseUrl, 2));
