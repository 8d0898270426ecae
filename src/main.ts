import 'reflect-metadata';
import { createApp } from './app.setup';
import { AppConfig } from './config/app-config';
import { ConfigError } from './config/environment';
import { DatabaseModule } from './database/database.module';
import { FirstStartService } from './modules/projects/first-start.service';

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = AppConfig.fromProcessEnv();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\nContinuum did not start: fix the variables above.\n`);
    process.exit(78); // EX_CONFIG
  }
  const started = Date.now();
  const database = await DatabaseModule.locate(config);
  const app = await createApp({ config, database });
  await app.listen(config.port, config.host);
  const scheme = config.tls ? 'https' : 'http';
  const local = `${scheme}://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  await app.get(FirstStartService).run(config.publicUrl ?? local);
  process.stdout.write(`Continuum listening on ${local} (docs: ${local}/docs), ready in ${Date.now() - started} ms\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`Continuum failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
