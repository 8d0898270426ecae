import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { EMBEDDED_CONNECTION_LIMITS, poolSizeOf } from '../../src/platform/database/data-source-options';
import { createTestDatabase, databaseTargets, type DatabaseTarget } from '../support/test-database';
import { startTestApp } from '../support/test-app';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Loads a fresh copy of the module, so that its cached probe result does not leak between tests. */
function freshTargets(env: Record<string, string | undefined>): DatabaseTarget[] {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete process.env[key];
  try {
    let targets: DatabaseTarget[] = [];
    jest.isolateModules(() => {
      const module = require('../support/test-database') as typeof import('../support/test-database');
      targets = module.databaseTargets();
    });
    return targets;
  } finally {
    process.env = saved;
  }
}

describe('databaseTargets', () => {
  it('always includes the embedded server', () => {
    expect(databaseTargets()).toContain('embedded');
  });

  it('includes postgres when TEST_DATABASE_URL is set, without probing', () => {
    expect(
      freshTargets({ TEST_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', TEST_DATABASE_TARGETS: undefined }),
    ).toEqual(['postgres', 'embedded']);
  });

  it('is narrowed by TEST_DATABASE_TARGETS', () => {
    expect(freshTargets({ TEST_DATABASE_TARGETS: 'embedded' })).toEqual(['embedded']);
    expect(freshTargets({ TEST_DATABASE_TARGETS: ' postgres , embedded ' })).toEqual(['postgres', 'embedded']);
  });

  it('rejects an unknown target name', () => {
    expect(() => freshTargets({ TEST_DATABASE_TARGETS: 'embedded,sqlite' })).toThrow(/unknown target\(s\) sqlite/);
  });
});

const targets = databaseTargets();
const onPostgres = targets.includes('postgres') ? describe : describe.skip;

onPostgres('createTestDatabase on postgres', () => {
  it('creates a fresh database, and drop() removes it even with a client still connected', async () => {
    const db = await createTestDatabase('postgres');
    const name = new URL(db.url).pathname.slice(1);
    expect(name).toMatch(/^continuum_test_[0-9a-f]{12}$/);
    const adminUrl = new URL(db.url);
    adminUrl.pathname = process.env.TEST_DATABASE_URL ? new URL(process.env.TEST_DATABASE_URL).pathname : '/postgres';
    const exists = async () =>
      (
        await query<{ n: number }>(
          adminUrl.toString(),
          `select count(*)::int as n from pg_database where datname = '${name}'`,
        )
      )[0]?.n;

    await query(db.url, 'create table probe (id int)');
    expect(await query(db.url, 'select count(*)::int as n from probe')).toEqual([{ n: 0 }]);
    expect(await exists()).toBe(1);

    const leaked = new Client({ connectionString: db.url });
    await leaked.connect();
    leaked.on('error', () => undefined); // terminated by DROP ... WITH (FORCE)
    await db.drop();
    await leaked.end().catch(() => undefined);
    expect(await exists()).toBe(0);
    await db.drop(); // idempotent
  });

  it('gives every call its own database', async () => {
    const [a, b] = await Promise.all([createTestDatabase('postgres'), createTestDatabase('postgres')]);
    try {
      expect(a.url).not.toBe(b.url);
      await query(a.url, 'create table only_in_a (id int)');
      expect(await query(b.url, "select to_regclass('only_in_a') is null as absent")).toEqual([{ absent: true }]);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });
});

describe('createTestDatabase on embedded', () => {
  it('starts a server in its own folder, and drop() stops it and removes the folder', async () => {
    const db = await createTestDatabase('embedded');
    expect(db.dir).toBeDefined();
    const dir = db.dir ?? '';
    expect(existsSync(dir)).toBe(true);
    await query(db.url, 'create table probe (id int)');
    expect(await query(db.url, 'select count(*)::int as n from probe')).toEqual([{ n: 0 }]);

    await db.drop();
    expect(existsSync(dir)).toBe(false);
    await expect(query(db.url, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
    await db.drop(); // idempotent
  });

  it('gives every call its own server, started from a pristine cluster', async () => {
    const [a, b] = await Promise.all([createTestDatabase('embedded'), createTestDatabase('embedded')]);
    try {
      expect(a.url).not.toBe(b.url);
      await query(a.url, 'create table only_in_a (id int)');
      expect(await query(b.url, "select to_regclass('only_in_a') is null as absent")).toEqual([{ absent: true }]);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });

  it('gives an app on it the embedded configuration, and the app leaves it running when it closes', async () => {
    const db = await createTestDatabase('embedded');
    try {
      const t = await startTestApp('embedded', { databaseUrl: db.url });
      const extra = t.dataSource.options.extra as { connectionTimeoutMillis: number };
      expect(poolSizeOf(t.dataSource.options)).toBe(4);
      expect(extra.connectionTimeoutMillis).toBe(EMBEDDED_CONNECTION_LIMITS.connectionTimeoutMillis);
      await t.close();
      expect(await query(db.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      await db.drop();
    }
  }, 60_000);

  it('removes folders of killed runs, but not live or recent ones', async () => {
    const made = (locked: boolean, ageMs: number) => {
      const folder = mkdtempSync(join(tmpdir(), 'continuum-pglite-'));
      mkdirSync(join(folder, 'data'));
      if (locked) writeFileSync(join(folder, 'data', 'embedded-postgres.lock'), `${process.pid}\n`);
      const when = new Date(Date.now() - ageMs);
      utimesSync(folder, when, when);
      return folder;
    };
    const hours = 60 * 60 * 1000;
    const abandoned = made(false, 2 * hours);
    const live = made(true, 2 * hours);
    const recent = made(false, 60_000);

    let db: { drop(): Promise<void> } | undefined;
    try {
      // A fresh module instance: the sweep runs once per instance.
      let create: typeof createTestDatabase = createTestDatabase;
      jest.isolateModules(() => {
        create = (require('../support/test-database') as typeof import('../support/test-database')).createTestDatabase;
      });
      db = await create('embedded');
      expect(existsSync(abandoned)).toBe(false);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(recent)).toBe(true);
    } finally {
      await db?.drop();
      for (const folder of [abandoned, live, recent]) rmSync(folder, { recursive: true, force: true });
    }
  });
});
