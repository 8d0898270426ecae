import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { AppError } from '../platform/errors/app-error';
import { newAdminToken, sha256Hex } from '../platform/ids';
import { AppConfig } from '../config/app-config';
import { ProjectControlsService } from '../modules/projects';
import { ProjectsService } from '../modules/projects';
import { CliError, describeDatabase, openCliDatabase } from './cli-database';
import { CliModule } from './cli.module';
import { runCommand, USAGE, UsageError } from './commands';
import { formatText } from './output';

const OPTIONS = {
  name: { type: 'string' },
  project: { type: 'string' },
  usd: { type: 'string' },
  note: { type: 'string' },
  unlimited: { type: 'boolean' },
  last: { type: 'string' },
  'concurrent-sessions': { type: 'string' },
  'requests-per-minute': { type: 'string' },
  actor: { type: 'string' },
  json: { type: 'boolean' },
  init: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function defaultActor(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}@${hostname()}`;
  }
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { positionals, values } = parsed;
  const json = values.json ?? false;
  const print = (result: unknown) =>
    process.stdout.write(`${json ? JSON.stringify(result, null, 2) : formatText(result)}\n`);
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  // Quiet by default: only errors, and those are handled below.
  Logger.overrideLogger(['error']);
  const config = AppConfig.fromProcessEnv();
  if (positionals[0] === 'where') {
    print(describeDatabase(config));
    return 0;
  }
  if (positionals.join(' ') === 'admin token') {
    const token = newAdminToken();
    print({ token, ADMIN_API_KEY_SHA256: sha256Hex(token) });
    return 0;
  }
  const database = await openCliDatabase(config, values.init ?? false);
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config, database), {
    logger: ['error'],
    abortOnError: false,
  });
  try {
    const services = {
      projects: app.get(ProjectsService),
      controls: app.get(ProjectControlsService),
      config,
      actor: values.actor ?? defaultActor(),
    };
    print(await runCommand(services, { positionals, ...values }));
    return 0;
  } finally {
    await app.close();
  }
}

/** Refusals and usage mistakes are the operator's to fix: one line each (JSON with --json), no stack. */
function report(error: unknown): number {
  const json = process.argv.includes('--json');
  if (error instanceof UsageError) {
    process.stderr.write(
      json
        ? `${JSON.stringify({ error: { code: 'usage', message: error.message } })}\n`
        : `${error.message}\n\n${USAGE}\n`,
    );
    return 2;
  }
  const code = error instanceof AppError ? error.code : error instanceof CliError ? 'cli_error' : 'failed';
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(json ? `${JSON.stringify({ error: { code, message } })}\n` : `error: ${message}\n`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(report(error)),
);
