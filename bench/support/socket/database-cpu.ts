/**
 * CPU used by the PostgreSQL backends serving one database (the service's pool), read from
 * /proc: the service's database work runs in those processes, not in the service's own.
 * Best effort: zero when the server is not on this machine.
 */
import { adminQuery } from '../scratch-database';
import { cpuSeconds } from '../proc-usage';

export type BackendCpu = Map<number, number>;

export async function backendCpu(database: string): Promise<BackendCpu> {
  const rows = await adminQuery<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
  const snapshot: BackendCpu = new Map();
  for (const { pid } of rows) {
    const seconds = cpuSeconds(pid);
    if (seconds !== null) snapshot.set(pid, seconds);
  }
  return snapshot;
}

/** CPU seconds between two snapshots; a backend that appeared in between counts from zero. */
export function backendCpuBetween(before: BackendCpu, after: BackendCpu): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
