// Writes openapi/openapi.json from the DTOs (sorted keys). The drift test fails when it is stale.
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../app.setup';
import { createRootLogger } from '../common/logging/logger';
import { AppConfig } from '../config/app-config';
import { OpenApiDocumentHolder } from '../modules/openapi/openapi-document.holder';
import { locateToolingDatabase } from './boot-for-tooling';

async function main(): Promise<void> {
  const config = AppConfig.fromProcessEnv({ SPEECH_ENGINE: 'scripted' });
  const { location, cleanup } = await locateToolingDatabase(config);
  const app = await createApp({ config, database: location, logger: createRootLogger('warn') });
  const target = join(process.cwd(), 'openapi', 'openapi.json');
  writeFileSync(target, `${JSON.stringify(app.get(OpenApiDocumentHolder).document, null, 2)}\n`);
  await app.close();
  cleanup();
  process.stdout.write(`wrote ${target}\n`);
}

void main();
