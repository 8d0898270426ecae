import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startLocalDaemon } from './local-daemon';

const BINARY = '/usr/sbin/pgbouncer';

/** Debian's `pgbouncer` (scripts/setup.sh --test installs it). */
export const pgBouncerInstalled = (): boolean => existsSync(BINARY);

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
  const { exited, child } = await startLocalDaemon(
    'pgbouncer',
    BINARY,
    [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    port,
  ).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
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
