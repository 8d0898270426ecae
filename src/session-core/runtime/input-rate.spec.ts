import { InputRateGuard } from './input-rate';

const MS = 48; // bytes per millisecond of pcm16 24 kHz

describe('InputRateGuard', () => {
  it('admits real-time input whole and silently', () => {
    const guard = new InputRateGuard(2000, 5000);
    for (let t = 0; t < 10_000; t += 80) {
      expect(guard.admit(80 * MS, t)).toBe(80 * MS);
      expect(guard.aheadWarning || guard.dropWarning).toBe(false);
    }
    expect(guard.droppedMs).toBe(0);
  });

  it('warns past the warn lead, once per episode', () => {
    const guard = new InputRateGuard(2000, 5000);
    guard.admit(2000 * MS, 0);
    expect(guard.aheadWarning).toBe(false);
    guard.admit(100 * MS, 0);
    expect(guard.aheadWarning).toBe(true);
    guard.admit(100 * MS, 0);
    expect(guard.aheadWarning).toBe(false);
    expect(guard.leadMs(0)).toBe(2200);
  });

  it('cuts input past the hard lead to whole samples and counts the dropped time', () => {
    const guard = new InputRateGuard(2000, 5000);
    expect(guard.admit(7000 * MS, 0)).toBe(5000 * MS);
    expect(guard.dropWarning).toBe(true);
    expect(guard.admit(100 * MS, 0)).toBe(0);
    expect(guard.dropWarning).toBe(false);
    expect(guard.droppedMs).toBe(2100);
    expect(guard.admit(1000 * MS, 1000)).toBe(1000 * MS);
    expect(guard.admit(1001, 1000) % 2).toBe(0);
  });

  it('starts a new episode once the lead is back within tolerance', () => {
    const guard = new InputRateGuard(2000, 5000);
    guard.admit(6000 * MS, 0);
    guard.admit(2 * MS, 3500); // lead 1.5 s: the episode is over
    guard.admit(6000 * MS, 3500);
    expect(guard.aheadWarning).toBe(true);
    expect(guard.dropWarning).toBe(true);
  });
});
