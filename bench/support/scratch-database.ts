/**
 * A throwaway PostgreSQL database for one benchmark run, on BENCH_DATABASE_URL's server or the
 * local one (127.0.0.1:5432, trust auth). Dropped afterwards, with FORCE so that connections a
 * killed server left behind do not keep it alive.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const BENCH_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchDatabase {
  name: string;
  url: string;
  /** Idempotent. */
  drop(): Promise<void>;
}

export async function adminQuery<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: BENCH_ADMIN_URL });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function createScratchDatabase(label: string): Promise<ScratchDatabase> {
  const name = `continuum_bench_${label}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = new URL(BENCH_ADMIN_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
