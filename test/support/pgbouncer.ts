import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BINARY = '/usr/sbin/pgbouncer';

/** Debian's `pgbouncer` (scripts/setup.sh --test installs it). */
export const pgBouncerInstalled = (): boolean => existsSync(BINARY);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * PgBouncer in transaction mode in front of `url`'s server, trusting its user; answers the same URL
 * with its own port. Runs as `postgres` when started by root (PgBouncer refuses to run as root).
 */
export async function startPgBouncer(url: string): Promise<{ url: string; stop(): Promise<void> }> {
  const target = new URL(url);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'continuum-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 40',
      'ignore_startup_parameters = extra_float_digits',
      // After a refused server connection PgBouncer waits this long before trying again (default 15 s):
      // the whole outage as far as clients can tell. docs/operations.md recommends the same.
      'server_login_retry = 1',
      'server_connect_timeout = 2',
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  const child = spawn(BINARY, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (listening) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const bounced = new URL(url);
  bounced.hostname = '127.0.0.1';
  bounced.port = String(port);
  return {
    url: bounced.toString(),
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
