import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { EmbeddedPostgres } from '../../src/platform/database/embedded-postgres';

const LOCK_FILE = 'embedded-postgres.lock';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((done) => setTimeout(done, 50));
  }
  return condition();
}

/** A pid that certainly belongs to no process: one that has just exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function queryOnce<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('EmbeddedPostgres', () => {
  let root: string;
  let dataDir: string;
  let server: EmbeddedPostgres | undefined;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'continuum-embedded-spec-'));
    // A folder that does not exist yet, two levels deep: start() must create it.
    dataDir = join(root, 'nested', 'data');
  });

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('creates a cluster on first start and serves pg connections', async () => {
    const logs: string[] = [];
    server = await EmbeddedPostgres.start({ dataDir, logger: (level, message) => logs.push(`${level} ${message}`) });

    expect(server.created).toBe(true);
    expect(server.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?sslmode=disable$/);
    expect(isAlive(server.pid)).toBe(true);
    const [row] = await queryOnce<{ version: string; db: string }>(
      server.url,
      'select version(), current_database() as db',
    );
    expect(row?.version).toContain('PGlite');
    expect(row?.db).toBe('postgres');
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(server.pid));
    expect(logs.some((line) => line.startsWith('info embedded PostgreSQL ready'))).toBe(true);
    // initdb ran in a staging folder that must not be left behind.
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    expect(readdirSync(dataDir).filter((entry) => entry.startsWith('.initdb-'))).toEqual([]);
  });

  it('survives a pool of 4 running concurrent queries and transactions', async () => {
    server = await EmbeddedPostgres.start({ dataDir });
    expect(server.created).toBe(false);
    const url = server.url;
    await queryOnce(url, 'create table pool_probe (tx int not null, n int not null)');

    const runRound = async (round: number) => {
      // A query caught in someone else's protocol cycle never gets its answer: fail, not hang.
      const pool = new Pool({ connectionString: url, max: 4, query_timeout: 15_000 });
      try {
        // Statements of different shapes: a client whose Bind reached another client's Parse
        // would fail on the parameter count or return the other's columns.
        const queries = Array.from({ length: 24 }, async (_, i) => {
          const { rows } =
            i % 2 === 0
              ? await pool.query<{ echo: number }>('select $1::int as echo, pg_sleep(0.002)', [i])
              : await pool.query<{ echo: number }>('select $1::int + $2::int as echo', [i, 0]);
          return rows[0]?.echo;
        });
        const transactions = Array.from({ length: 12 }, async (_, tx) => {
          const client = await pool.connect();
          try {
            await client.query('begin');
            await client.query('insert into pool_probe select $1, g from generate_series(1, 10) g', [round * 100 + tx]);
            const { rows } = await client.query<{ count: string }>('select count(*) from pool_probe where tx = $1', [
              round * 100 + tx,
            ]);
            // Transaction 5 of each round changes its mind: nothing of it may survive.
            await client.query(tx === 5 ? 'rollback' : 'commit');
            return Number(rows[0]?.count);
          } finally {
            client.release();
          }
        });
        // Failing cycles in between: the backend skips to the failing client's Sync, never past it.
        const failures = Array.from({ length: 4 }, () =>
          pool.query('select $1::int as echo', ['not a number']).then(
            () => 'succeeded',
            (error: { code?: string }) => error.code,
          ),
        );
        const [echoes, counts, failed] = await Promise.all([
          Promise.all(queries),
          Promise.all(transactions),
          Promise.all(failures),
        ]);
        expect(echoes).toEqual(Array.from({ length: 24 }, (_, i) => i));
        expect(counts).toEqual(Array.from({ length: 12 }, () => 10));
        expect(failed).toEqual(['22P02', '22P02', '22P02', '22P02']);
      } finally {
        await pool.end();
      }
    };

    // The second round reconnects right after the first pool closed, which is where too small a
    // connection limit shows up (pglite-socket frees slots asynchronously).
    await runRound(1);
    await runRound(2);
    const [totals] = await queryOnce<{ rows: string; txs: string }>(
      url,
      'select count(*) as rows, count(distinct tx) as txs from pool_probe',
    );
    expect(totals).toEqual({ rows: String(2 * 11 * 10), txs: String(2 * 11) });
  });

  it('rolls back the transaction of a client that vanishes, without blocking the others', async () => {
    server = await EmbeddedPostgres.start({ dataDir });
    const url = server.url;
    await queryOnce(url, 'create table vanishing (label text)');
    const leaver = new Client({ connectionString: url });
    await leaver.connect();
    leaver.on('error', () => undefined);
    await leaver.query('begin');
    await leaver.query("insert into vanishing values ('left open')");

    // While the leaver holds its transaction, another client has to wait for its turn...
    const waiting = queryOnce<{ n: number }>(url, 'select count(*)::int as n from vanishing');
    await new Promise((done) => setTimeout(done, 200));
    // ...which comes when the leaver's socket drops without a word (a crashed client).
    (leaver as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    await expect(waiting).resolves.toEqual([{ n: 0 }]);
    await expect(queryOnce(url, 'select count(*)::int as n from vanishing')).resolves.toEqual([{ n: 0 }]);
  });

  it('refuses connections past maxConnections with a PostgreSQL error, and frees slots at once', async () => {
    server = await EmbeddedPostgres.start({ dataDir, maxConnections: 2 });
    const clients = [new Client({ connectionString: server.url }), new Client({ connectionString: server.url })];
    await Promise.all(clients.map((client) => client.connect()));
    const third = new Client({ connectionString: server.url });
    await expect(third.connect()).rejects.toThrow('sorry, too many clients already');

    await clients[0]?.end();
    const again = new Client({ connectionString: server.url });
    await again.connect();
    await expect(again.query('select 1 as one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await Promise.all([again.end(), clients[1]?.end()]);
  });

  it('is usable by TypeORM through its url, with the uuid extensions available', async () => {
    server = await EmbeddedPostgres.start({ dataDir });
    const dataSource = await new DataSource({ type: 'postgres', url: server.url, extra: { max: 4 } }).initialize();
    try {
      await dataSource.query('create extension if not exists "uuid-ossp"');
      await dataSource.query('create extension if not exists pgcrypto');
      const [row] = (await dataSource.query(
        'select uuid_generate_v4()::text as v4, gen_random_uuid()::text as builtin, digest($1, $2) is not null as digest',
        ['x', 'sha256'],
      )) as { v4: string; builtin: string; digest: boolean }[];
      expect(row?.v4).toMatch(/^[0-9a-f-]{36}$/);
      expect(row?.builtin).toMatch(/^[0-9a-f-]{36}$/);
      expect(row?.digest).toBe(true);
    } finally {
      await dataSource.destroy();
    }
  });

  it('keeps committed data across stop and start, and drops what a client left uncommitted', async () => {
    server = await EmbeddedPostgres.start({ dataDir });
    await queryOnce(server.url, 'create table persisted (label text)');
    await queryOnce(server.url, "insert into persisted values ('committed')");
    const open = new Client({ connectionString: server.url });
    await open.connect();
    open.on('error', () => undefined); // the server goes away under it
    await open.query('begin');
    await open.query("insert into persisted values ('uncommitted')");

    await server.stop();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    await open.end().catch(() => undefined);

    server = await EmbeddedPostgres.start({ dataDir });
    expect(server.created).toBe(false);
    const rows = await queryOnce<{ label: string }>(server.url, 'select label from persisted order by label');
    expect(rows).toEqual([{ label: 'committed' }]);
  });

  it('refuses a second start on a data directory in use, naming the owner', async () => {
    server = await EmbeddedPostgres.start({ dataDir });
    const started = Date.now();
    const second = EmbeddedPostgres.start({ dataDir });
    await expect(second).rejects.toThrow(`data directory is in use by process ${server.pid}`);
    await expect(second).rejects.toThrow(/exit code 3/);
    // Refused before PGlite is even loaded.
    expect(Date.now() - started).toBeLessThan(5000);
    // The first server is unaffected.
    await expect(queryOnce(server.url, 'select 1 as one')).resolves.toEqual([{ one: 1 }]);
  });

  it('takes over a lock left by a process that is gone', async () => {
    const stalePid = deadPid();
    expect(isAlive(stalePid)).toBe(false);
    writeFileSync(join(dataDir, LOCK_FILE), `${stalePid}\n2020-01-01T00:00:00.000Z\n`);

    server = await EmbeddedPostgres.start({ dataDir });
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(server.pid));
  });

  const linuxOnly = process.platform === 'linux' ? it : it.skip;
  linuxOnly('takes over a lock whose pid now belongs to an unrelated process', async () => {
    // This Jest worker is alive but is no PGlite host: the pid was recycled (a restarted container).
    writeFileSync(join(dataDir, LOCK_FILE), `${process.pid}\n2020-01-01T00:00:00.000Z\n`);
    server = await EmbeddedPostgres.start({ dataDir });
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(server.pid));
  });

  it('stop() leaves no process behind and can be called twice', async () => {
    server = await EmbeddedPostgres.start({ dataDir });
    const { pid } = server;
    await Promise.all([server.stop(), server.stop()]);
    expect(isAlive(pid)).toBe(false);
    await expect(server.exited).resolves.toEqual({ code: 0, signal: null });
    await server.stop();
  });

  it('stop() kills the host when a clean shutdown takes too long', async () => {
    const logs: string[] = [];
    server = await EmbeddedPostgres.start({
      dataDir,
      stopTimeoutMs: 1000,
      logger: (level, message) => logs.push(`${level} ${message}`),
    });
    const busy = new Client({ connectionString: server.url });
    await busy.connect();
    busy.on('error', () => undefined);
    // PGlite ignores statement_timeout and cancel requests, and closing waits for the query.
    void busy.query('select pg_sleep(60)').catch(() => undefined);
    await new Promise((done) => setTimeout(done, 300));

    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(logs.some((line) => line.includes('did not stop within 1000 ms'))).toBe(true);
    await busy.end().catch(() => undefined);

    // The SIGKILLed host's lock is stale, and committed data survived through the WAL.
    server = await EmbeddedPostgres.start({ dataDir });
    await expect(queryOnce(server.url, 'select count(*)::int as n from persisted')).resolves.toEqual([{ n: 1 }]);
  });

  it('ends the host when its parent dies', async () => {
    const parent = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', join(__dirname, 'fixtures', 'embedded-parent.ts'), dataDir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((done, fail) => {
      createInterface({ input: parent.stdout }).once('line', done);
      parent.once('exit', (code) => fail(new Error(`parent exited early (${code})`)));
    });
    const { pid, url } = JSON.parse(line) as { pid: number; url: string };
    await expect(queryOnce(url, 'select 1 as one')).resolves.toEqual([{ one: 1 }]);

    parent.kill('SIGKILL');
    expect(await waitUntil(() => !isAlive(pid), 15_000)).toBe(true);
    // It shut down cleanly: the lock is released, not merely stale.
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('rejects with the host stderr when the data directory cannot be used', async () => {
    const foreign = join(root, 'foreign');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'notes.txt'), 'not a database');

    const attempt = EmbeddedPostgres.start({ dataDir: foreign });
    await expect(attempt).rejects.toThrow(/failed to start: the host exited \(exit code 1\)/);
    await expect(attempt).rejects.toThrow(/holds no PGlite cluster \(no PG_VERSION\) but is not empty \(notes\.txt\)/);
  });

  it('rejects when the host is not ready in time, and kills it', async () => {
    const slow = join(root, 'slow');
    const attempt = EmbeddedPostgres.start({ dataDir: slow, startTimeoutMs: 200 });
    await expect(attempt).rejects.toThrow(/not ready within 200 ms/);
    // Refused only once the killed host is gone: a start right away must not find it holding the lock.
    const lock = join(slow, LOCK_FILE);
    if (existsSync(lock)) expect(isAlive(Number(readFileSync(lock, 'utf8').split('\n')[0]))).toBe(false);
    // The killed host must not hold the folder, and what a killed initdb left is cleared away.
    mkdirSync(join(slow, '.initdb-999999', 'base'), { recursive: true });
    writeFileSync(join(slow, '.initdb-999999', 'PG_VERSION'), '18\n');
    server = await EmbeddedPostgres.start({ dataDir: slow });
    expect(server.created).toBe(true);
    expect(readdirSync(slow).filter((entry) => entry.startsWith('.initdb-'))).toEqual([]);
  });
});
