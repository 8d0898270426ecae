/**
 * The machine is shared (other people's builds and tests run on it): before repeating a step
 * that was measured while others were busy, wait a little for a quieter moment.
 */
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { machineCpuSeconds } from '../proc-usage';

/** Cores the whole machine used over the last `ms`. Call it while the benchmark itself is idle. */
export async function busyCores(ms = 1000): Promise<number> {
  const before = machineCpuSeconds();
  await sleep(ms);
  const after = machineCpuSeconds();
  const total = after.total - before.total;
  return total > 0 ? ((after.busy - before.busy) / total) * cpus().length : 0;
}

/** Waits until the machine uses at most `maxCores`, for at most `maxWaitMs`; returns the last reading. */
export async function waitForQuiet(maxCores: number, maxWaitMs: number): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  let busy = await busyCores();
  while (busy > maxCores && Date.now() < deadline) busy = await busyCores();
  return busy;
}
