/**
 * Throwaway databases for tests, on both targets the service supports: a real PostgreSQL server
 * and the embedded PGlite. Suites run once per target with `describe.each(databaseTargets())`.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgres } from '../../src/platform/database/embedded-postgres';

export type DatabaseTarget = 'postgres' | 'embedded';

export interface TestDatabase {
  url: string;
  /** The embedded server's folder (embedded target only). */
  dir?: string;
  /** Removes the database (postgres) or stops the server and deletes its folder (embedded). */
  drop(): Promise<void>;
}

const ALL_TARGETS: readonly DatabaseTarget[] = ['postgres', 'embedded'];
const LOCAL_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

let cachedTargets: DatabaseTarget[] | undefined;

/**
 * 'embedded' always; 'postgres' when TEST_DATABASE_URL is set or a server listens on
 * 127.0.0.1:5432. TEST_DATABASE_TARGETS (e.g. `postgres,embedded`) picks the targets instead,
 * without probing: a CI job that names `postgres` then fails loudly if the server is missing
 * rather than quietly testing less.
 */
export function databaseTargets(): DatabaseTarget[] {
  cachedTargets ??= resolveTargets();
  return [...cachedTargets];
}

function resolveTargets(): DatabaseTarget[] {
  const requested = process.env.TEST_DATABASE_TARGETS?.trim();
  if (requested) {
    const names = requested
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const unknown = names.filter((name) => !ALL_TARGETS.includes(name as DatabaseTarget));
    if (unknown.length > 0) {
      throw new Error(`TEST_DATABASE_TARGETS: unknown target(s) ${unknown.join(', ')}; use ${ALL_TARGETS.join(', ')}`);
    }
    return ALL_TARGETS.filter((target) => names.includes(target));
  }
  const postgres = process.env.TEST_DATABASE_URL || localServerListens();
  return postgres ? ['postgres', 'embedded'] : ['embedded'];
}

/**
 * describe.each needs the targets while Jest collects tests, synchronously, so the port is
 * probed from a short-lived child process.
 */
function localServerListens(): boolean {
  const probe =
    "const s=require('net').connect(5432,'127.0.0.1');" +
    's.on("connect",()=>process.exit(0));s.on("error",()=>process.exit(1));' +
    'setTimeout(()=>process.exit(1),1000);';
  const result = spawnSync(process.execPath, ['-e', probe], { stdio: 'ignore', timeout: 5000 });
  return result.status === 0;
}

/** The embedded test servers running in this process, by URL: an app on one runs as on its own embedded server. */
const embeddedServers = new Map<string, EmbeddedPostgres>();

/** The embedded test server at `url`, or null (a PostgreSQL server, or a proxy in front of either). */
export function embeddedServerAt(url: string): EmbeddedPostgres | null {
  return embeddedServers.get(url) ?? null;
}

export async function createTestDatabase(target: DatabaseTarget): Promise<TestDatabase> {
  return target === 'postgres' ? createServerDatabase() : createEmbeddedDatabase();
}

/** A fresh database on TEST_DATABASE_URL's server, or on the local one. */
async function createServerDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL || LOCAL_SERVER_URL;
  const name = `continuum_test_${randomBytes(6).toString('hex')}`;
  await runAdminStatement(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      // FORCE ends connections a test leaked (PostgreSQL 13+) instead of failing the cleanup.
      await runAdminStatement(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

async function runAdminStatement(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const EMBEDDED_PREFIX = 'continuum-pglite-';
/** A test server's folder or an unfinished template build (mkdtemp adds six characters), never the template. */
const EMBEDDED_FOLDER = new RegExp(`^${EMBEDDED_PREFIX}(?:template-.+\\.building-)?[A-Za-z0-9]{6}$`);
const ABANDONED_AFTER_MS = 60 * 60 * 1000;
let swept = false;

/**
 * A run that is killed (Ctrl-C, a worker that times out) never reaches drop(): its server stops by
 * itself when its parent dies, but the folder (about 40 MB) stays. Folders older than an hour
 * whose server no longer holds the lock are removed.
 */
function sweepAbandonedFolders(): void {
  if (swept) return;
  swept = true;
  for (const entry of readdirSync(tmpdir())) {
    if (!EMBEDDED_FOLDER.test(entry)) continue;
    const folder = join(tmpdir(), entry);
    try {
      const abandoned = Date.now() - statSync(folder).mtimeMs > ABANDONED_AFTER_MS;
      if (abandoned && !existsSync(join(folder, 'data', 'embedded-postgres.lock'))) {
        rmSync(folder, { recursive: true, force: true });
      }
    } catch {
      // Another worker swept it first, or it is not ours to remove.
    }
  }
}

/** A fresh EmbeddedPostgres in its own temp folder, started from a copy of a template cluster. */
async function createEmbeddedDatabase(): Promise<TestDatabase> {
  sweepAbandonedFolders();
  const root = mkdtempSync(join(tmpdir(), EMBEDDED_PREFIX));
  try {
    const dataDir = join(root, 'data');
    cpSync(await templateCluster(), dataDir, { recursive: true });
    const server = await EmbeddedPostgres.start({ dataDir });
    embeddedServers.set(server.url, server);
    let dropped = false;
    return {
      url: server.url,
      dir: root,
      drop: async () => {
        if (dropped) return;
        dropped = true;
        embeddedServers.delete(server.url);
        try {
          await server.stop();
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

let template: Promise<string> | undefined;

/**
 * initdb costs about 4 s and copying a cluster about 0.1 s, so one pristine cluster per PGlite
 * version is kept in the temp folder and shared by every worker and run. It is built aside and
 * renamed into place, so a reader never sees a half-built one.
 */
function templateCluster(): Promise<string> {
  template ??= (async () => {
    const path = join(tmpdir(), `${EMBEDDED_PREFIX}template-${pgliteVersion()}`);
    if (existsSync(join(path, 'PG_VERSION'))) return path;
    const building = mkdtempSync(`${path}.building-`);
    try {
      const server = await EmbeddedPostgres.start({ dataDir: building });
      await server.stop();
      try {
        renameSync(building, path);
      } catch (error) {
        // Another worker finished first; its template is as good as ours.
        if (!existsSync(join(path, 'PG_VERSION'))) throw error;
      }
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    return path;
  })();
  template.catch(() => {
    template = undefined; // let the next caller retry rather than inherit the failure
  });
  return template;
}

function pgliteVersion(): string {
  // The package's exports map hides package.json; it sits one folder above the entry point.
  const manifestPath = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string };
  return manifest.version;
}
