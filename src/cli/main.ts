import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AppConfig } from '../config/app-config';
import { DatabaseModule } from '../database/database.module';
import { ProjectsService } from '../modules/projects/projects.service';
import { CliModule } from './cli.module';
import { runCommand, USAGE } from './commands';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { name: { type: 'string' }, project: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = AppConfig.fromProcessEnv();
  const database = await DatabaseModule.locate(config);
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config, database), { logger: ['error'] });
  try {
    const result = await runCommand(app.get(ProjectsService), { positionals, ...values });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await app.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
