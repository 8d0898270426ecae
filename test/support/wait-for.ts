import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` until it holds: for state the service records after the client has already seen the end. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(100);
  }
}
