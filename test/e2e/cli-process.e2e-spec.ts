import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPostgres } from '../../src/platform/database/embedded-postgres';
import { createTestDatabase, databaseTargets, TestDatabase } from '../support/test-database';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The console as an operator runs it: its own process, its own environment, real database. */
function cli(args: string[], env: Record<string, string>, cwd = ROOT): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', MAIN, ...args], {
      cwd,
      // Only what the test sets: no DATABASE_URL or DATA_DIR leaking in from the shell.
      env: { PATH: process.env.PATH ?? '', TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the console as a process, embedded database', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'continuum-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to create a database it was not asked to, and says where it looked', async () => {
    const dataDir = join(dir, 'nothing-here');
    const run = await cli(['projects', 'list'], { DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`No Continuum database in DATA_DIR=${dataDir}`);
    expect(run.stderr).toContain('--init');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
    const where = await cli(['where', '--json'], { DATA_DIR: dataDir });
    expect(JSON.parse(where.stdout)).toEqual({ database: 'embedded', data_dir: dataDir, exists: false });
  });

  it('with --init creates it and prints only the answer; a database held by a running process is named', async () => {
    const dataDir = join(dir, 'data');
    const created = await cli(['projects', 'create', '--name', 'Acme', '--json', '--init'], { DATA_DIR: dataDir });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out.key.secret).toMatch(/^wk_/);

    const text = await cli(['keys', 'list', '--project', out.project.id], { DATA_DIR: dataDir });
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/^id\s+name\s+prefix\s+created_at\s+last_used_at\s+revoked_at\n/);
    expect(text.stdout).not.toContain(out.key.secret);

    const server = await EmbeddedPostgres.start({ dataDir: join(dataDir, 'postgres') });
    try {
      const held = await cli(['projects', 'list'], { DATA_DIR: dataDir });
      expect(held.code).toBe(1);
      expect(held.stderr).toContain(`in use by process ${server.pid}`);
      expect(held.stderr).toContain('stop that process');
      expect(held.stderr).toContain('DATABASE_URL');
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe.each(databaseTargets().filter((t) => t === 'postgres'))('the console as a process on %s', (target) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(target);
  });
  afterAll(() => db?.drop());

  it('manages credit and keys with --json for scripts, and fails with a JSON error and exit code', async () => {
    const env = { DATABASE_URL: db.url };
    const project = JSON.parse((await cli(['projects', 'create', '--name', 'Ops', '--json'], env)).stdout).project;
    const added = await cli(
      ['credit', 'add', '--project', project.id, '--usd', '12.5', '--actor', 'ops-bot', '--json'],
      env,
    );
    expect(added.stderr).toBe('');
    expect(JSON.parse(added.stdout)).toMatchObject({
      project: { balance_usd: '22.500000' },
      change: { kind: 'credit_added', amount_usd: '12.500000', by: 'ops-bot' },
    });
    const missing = await cli(['credit', 'show', '--project', 'proj_nope', '--json'], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toEqual({ error: { code: 'not_found', message: 'No project proj_nope' } });
    const mistake = await cli(['credit', 'limit', '--project', project.id], env);
    expect(mistake.code).toBe(2);
    expect(mistake.stderr).toContain('give either --usd <amount> or --unlimited');
    const where = JSON.parse(
      (await cli(['where', '--json'], { DATABASE_URL: 'postgres://u:pw@db.example:5432/c' })).stdout,
    );
    expect(where).toEqual({ database: 'postgresql', url: 'postgres://u:***@db.example:5432/c' });
  }, 120_000);
});
