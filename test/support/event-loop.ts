/**
 * Whether native work runs off the event loop: a 5 ms interval timer runs beside `work`, and the
 * longest gap between its callbacks is measured. Work on the loop would make that gap the whole call;
 * compare it with `workMs`, as an absolute bound would measure how loaded the machine is.
 */
export async function loopGapDuring(work: () => Promise<unknown>): Promise<{ maxGapMs: number; workMs: number }> {
  let maxGapMs = 0;
  let last = Date.now();
  const timer = setInterval(() => {
    maxGapMs = Math.max(maxGapMs, Date.now() - last);
    last = Date.now();
  }, 5);
  const started = Date.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { maxGapMs, workMs: Date.now() - started };
}
