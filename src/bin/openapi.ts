// Writes openapi/openapi.json from the DTOs and asyncapi/asyncapi.json from the socket dialects (sorted
// keys). The drift tests fail when either is stale.
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../app.setup';
import { createRootLogger } from '../platform/logging/logger';
import { AppConfig } from '../config/app-config';
import { buildAsyncApiDocument } from '../platform/openapi/asyncapi-document';
import { OpenApiDocumentHolder } from '../modules/docs';
import { ASYNCAPI_INPUTS } from '../gateway/dialects';
import { locateToolingDatabase } from './boot-for-tooling';

async function main(): Promise<void> {
  const config = AppConfig.fromProcessEnv({ SPEECH_ENGINE: 'scripted' });
  const { location, cleanup } = await locateToolingDatabase(config);
  const app = await createApp({ config, database: location, logger: createRootLogger('warn') });
  const target = join(process.cwd(), 'openapi', 'openapi.json');
  writeFileSync(target, `${JSON.stringify(app.get(OpenApiDocumentHolder).document, null, 2)}\n`);
  await app.close();
  cleanup();
  const asyncTarget = join(process.cwd(), 'asyncapi', 'asyncapi.json');
  mkdirSync(join(process.cwd(), 'asyncapi'), { recursive: true });
  writeFileSync(asyncTarget, `${JSON.stringify(buildAsyncApiDocument(ASYNCAPI_INPUTS), null, 2)}\n`);
  process.stdout.write(`wrote ${target} and ${asyncTarget}\n`);
}

void main();
