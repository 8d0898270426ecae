/** Starts and kills Continuum worker processes (test/support/worker-process.ts) for gateway tests. */
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createTestDatabase, DatabaseTarget, TestDatabase } from './test-database';

export interface WorkerProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  /** ws://127.0.0.1:<port>/v1/realtime */
  realtimeUrl: string;
  apiKey: string;
  databaseUrl: string;
  child: ChildProcess;
  /** SIGKILL: the worker dies without closing anything (a crashed pod). */
  kill(): void;
  stop(): Promise<void>;
}

/**
 * `shareDatabaseOf`: run on that worker's database (a worker tier shares one; its API keys work on
 * both). Stop the sharing worker first: the owner drops the database.
 */
export async function startWorkerProcess(
  target: DatabaseTarget,
  shareDatabaseOf?: WorkerProcess,
): Promise<WorkerProcess> {
  const db: TestDatabase = shareDatabaseOf
    ? { url: shareDatabaseOf.databaseUrl, drop: async () => undefined }
    : await createTestDatabase(target);
  const root = join(__dirname, '..', '..');
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'test/support/worker-process.ts'], {
    cwd: root,
    env: { ...process.env, WORKER_DATABASE_URL: db.url, TS_NODE_PROJECT: join(root, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${stderr.slice(-2000)}`)));
    });
    const { url, apiKey } = JSON.parse(line) as { url: string; apiKey: string };
    return {
      url,
      realtimeUrl: `${url.replace(/^http/, 'ws')}/v1/realtime`,
      apiKey,
      databaseUrl: db.url,
      child,
      kill: () => child.kill('SIGKILL'),
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
        await db.drop();
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    await db.drop();
    throw error;
  }
}
