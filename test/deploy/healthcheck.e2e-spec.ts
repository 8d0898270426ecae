import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { databaseTargets } from '../support/test-database';
import { startTestApp, TestApp } from '../support/test-app';
import { pemPair } from '../support/tls-and-words';

/** The image's HEALTHCHECK script against a real service: it follows TLS_*, HOST and PORT. */
const SCRIPT = join(__dirname, '..', '..', 'scripts', 'image', 'healthcheck.cjs');

async function probe(env: Record<string, string>): Promise<number> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(HOST|PORT|TLS_)/.test(k)));
  try {
    await promisify(execFile)(process.execPath, [SCRIPT], { env: { ...clean, ...env }, timeout: 10_000 });
    return 0;
  } catch (error) {
    return (error as { code?: number }).code ?? -1;
  }
}
const portOf = (t: TestApp) => new URL(t.baseUrl).port;

describe('the image healthcheck script', () => {
  const target = databaseTargets()[0];
  let dir: string;
  let plain: TestApp;
  let tls: TestApp;
  let tlsEnv: Record<string, string>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'continuum-healthcheck-'));
    const { cert, key } = pemPair(dir);
    tlsEnv = { TLS_CERT_FILE: cert, TLS_KEY_FILE: key };
    plain = await startTestApp(target);
    tls = await startTestApp(target, { env: tlsEnv });
  });
  afterAll(async () => {
    await tls?.close();
    await plain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is healthy where the service listens: wildcard or explicit HOST, plain or TLS', async () => {
    expect(await probe({ PORT: portOf(plain) })).toBe(0);
    expect(await probe({ PORT: portOf(plain), HOST: '0.0.0.0' })).toBe(0);
    expect(await probe({ PORT: portOf(plain), HOST: '127.0.0.1' })).toBe(0);
    expect(await probe({ PORT: portOf(tls), HOST: '0.0.0.0', ...tlsEnv })).toBe(0);
  });

  it('is unhealthy when nothing healthy answers there', async () => {
    expect(await probe({ PORT: portOf(tls), HOST: '0.0.0.0' })).toBe(1); // plain HTTP to a TLS port
    expect(await probe({ PORT: portOf(plain), ...tlsEnv })).toBe(1); // TLS to a plain port
    expect(await probe({ PORT: portOf(plain), HOST: '127.0.0.2' })).toBe(1); // not listening there
  });
});
