/**
 * A Continuum instance in a process of its own, for tests that need a worker they can kill: the
 * embedded engine, the database named by WORKER_DATABASE_URL (created and dropped by the parent).
 * Prints one JSON line `{"url": …, "apiKey": …}` once it listens.
 *
 *   node -r ts-node/register/transpile-only test/support/worker-process.ts
 */
import 'reflect-metadata';
import { startTestApp } from './test-app';

async function main(): Promise<void> {
  const databaseUrl = process.env.WORKER_DATABASE_URL;
  if (!databaseUrl) throw new Error('WORKER_DATABASE_URL is required');
  const app = await startTestApp('postgres', {
    databaseUrl,
    env: { SPEECH_ENGINE: 'embedded', ENGINE_MAX_STREAMS: process.env.WORKER_MAX_STREAMS ?? '2', LOG_LEVEL: 'warn' },
  });
  const { apiKey } = await app.newProject('worker');
  process.stdout.write(`${JSON.stringify({ url: app.baseUrl, apiKey })}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
