import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { freePort, startLocalDaemon } from './local-daemon';

const BINARY = '/usr/bin/turnserver';

/** Debian's `coturn` (scripts/setup.sh --test installs it). */
export const coturnInstalled = (): boolean => existsSync(BINARY);

export interface Coturn {
  /** URLs for a browser's `iceServers`: the relay reached over UDP, or over TCP (same port). */
  readonly udpUrl: string;
  readonly tcpUrl: string;
  /** Time-limited credentials of coturn's REST-API scheme (`use-auth-secret`), as an app server mints them. */
  credentials(ttlSeconds?: number): { username: string; credential: string };
  /** Allocations coturn reported as made (its log lines). */
  allocations(): number;
  /** coturn's log so far (for a failing test's message). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * coturn on loopback, listening on UDP and TCP on one free port and relaying over UDP from 127.0.0.1
 * to the service. The shared secret is the REST-API one (`use-auth-secret`): the HMAC an app server
 * uses to mint each browser's short-lived credentials. Loopback peers are refused by default (coturn
 * 4.6); the test's service is on loopback.
 */
export async function startCoturn(): Promise<Coturn> {
  const secret = 'coturn-test-secret';
  const port = await freePort();
  const relayFrom = 50_000 + Math.floor(Math.random() * 14_000);
  const { child, output, exited } = await startLocalDaemon(
    'coturn',
    BINARY,
    [
      '-n', // no configuration file: everything is on this line
      '--listening-ip=127.0.0.1',
      `--listening-port=${port}`,
      '--relay-ip=127.0.0.1',
      `--min-port=${relayFrom}`,
      `--max-port=${relayFrom + 200}`,
      '--no-tls',
      '--no-dtls',
      '--no-cli',
      '--fingerprint',
      '--use-auth-secret',
      `--static-auth-secret=${secret}`,
      '--realm=continuum.test',
      '--allow-loopback-peers',
      '--log-file=stdout',
      '--simple-log',
      '--verbose', // the allocations' lines
    ],
    port,
  );
  return {
    udpUrl: `turn:127.0.0.1:${port}?transport=udp`,
    tcpUrl: `turn:127.0.0.1:${port}?transport=tcp`,
    credentials(ttlSeconds = 600) {
      const username = `${Math.floor(Date.now() / 1000) + ttlSeconds}:continuum-test`;
      return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
    },
    allocations: () =>
      output()
        .split('\n')
        .filter((line) => /ALLOCATE processed, success/.test(line)).length,
    log: output,
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
