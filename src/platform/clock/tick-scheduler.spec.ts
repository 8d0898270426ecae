import { ManualClockHost } from './testing/manual-clock-host';
import { TickScheduler } from './tick-scheduler';

const setup = (options: { tickMs?: number; wheelBuckets?: number; turnBudgetMs?: number } = {}) => {
  const host = new ManualClockHost();
  const clock = new TickScheduler({ tickMs: 5, ...options, host });
  return { host, clock };
};

describe('TickScheduler', () => {
  describe('timers', () => {
    it('by default serves a timer within a tick of 1 ms (plus the wake-up rounding to whole ms) of its due time', () => {
      const host = new ManualClockHost(1000.25);
      const clock = new TickScheduler({ host });
      const lateBy: number[] = [];
      // Due times at every fraction of the default tick, as pacers of many sessions set them.
      for (const delay of [0.5, 1.9, 2.1, 3.3, 4.2, 79.9, 80.4, 2500.7]) {
        const due = host.monotonicMs() + delay;
        clock.setTimer(() => lateBy.push(host.monotonicMs() - due), delay);
      }
      host.advance(3000);
      expect(lateBy).toHaveLength(8);
      for (const late of lateBy) {
        expect(late).toBeGreaterThanOrEqual(0);
        // One tick, plus the wake-up's rounding to whole ms (as setTimeout's); 5 ms ticks let it reach ~6.
        expect(late).toBeLessThan(2);
      }
    });

    it('does not wake on empty ticks: a lone far timer costs a wake-up per 64 ticks, and a nearer one set meanwhile still runs on time', () => {
      const host = new ManualClockHost();
      const clock = new TickScheduler({ host }); // 1 ms ticks
      let far = 0;
      clock.setTimer(() => far++, 2000); // a session's expiry, say
      host.advance(1000);
      expect(far).toBe(0);
      expect(host.woken).toBeLessThanOrEqual(1000 / 64 + 2); // not one per 1 ms tick
      const start = host.monotonicMs();
      let nearAt = -1;
      clock.setTimer(() => (nearAt = host.monotonicMs()), 3); // armed for a later tick: comes sooner
      host.advance(10);
      expect(nearAt - start).toBeGreaterThanOrEqual(3);
      expect(nearAt - start).toBeLessThan(5);
      host.advance(1000);
      expect(far).toBe(1);
    });

    it('runs timers in due order (ties in the order they were set), never before they are due', () => {
      const { host, clock } = setup();
      const fired: string[] = [];
      const at: Record<string, number> = {};
      const set = (name: string, delay: number) =>
        clock.setTimer(() => {
          fired.push(name);
          at[name] = host.monotonicMs();
        }, delay);
      const start = host.monotonicMs();
      set('c', 23);
      set('a', 3);
      set('b', 12);
      set('b2', 12);
      set('d', 7000); // beyond the wheel's span (1024 × 5 ms): waits its rounds
      host.advance(30);
      expect(fired).toEqual(['a', 'b', 'b2', 'c']);
      for (const [name, delay] of [
        ['a', 3],
        ['b', 12],
        ['c', 23],
      ] as const) {
        expect(at[name] - start).toBeGreaterThanOrEqual(delay);
        expect(at[name] - start).toBeLessThan(delay + 5); // served at the first tick at or after its due time
      }
      host.advance(6000);
      expect(fired).toEqual(['a', 'b', 'b2', 'c']);
      host.advance(1000);
      expect(fired).toEqual(['a', 'b', 'b2', 'c', 'd']);
      expect(at.d - start).toBeGreaterThanOrEqual(7000);
    });

    it('clears a timer, and a timer set by a timer for now runs at the next tick, not in the same one', () => {
      const { host, clock } = setup();
      const fired: string[] = [];
      const cleared = clock.setTimer(() => fired.push('cleared'), 10);
      clock.setTimer(() => {
        fired.push('first');
        clock.setTimer(() => fired.push(`nested at ${host.monotonicMs()}`), 0);
      }, 10);
      clock.clearTimer(cleared);
      clock.clearTimer(cleared); // twice: harmless
      clock.clearTimer({}); // foreign handle: ignored
      host.advance(10);
      expect(fired).toEqual(['first']);
      host.advance(5);
      expect(fired).toEqual(['first', 'nested at 1015']);
      expect(clock.stats().timers).toBe(0);
    });

    it('answers now() in epoch milliseconds (the session core ClockPort)', () => {
      const { host, clock } = setup();
      expect(clock.now()).toBe(host.epochMs());
    });
  });

  describe('fairness', () => {
    it('spreads a rotation evenly over its slots, and each tick serves only its own slot', () => {
      const { host, clock } = setup();
      const served: { at: number; members: number[] }[] = [];
      const rotation = clock.rotation<number>(100, 10, (members) =>
        served.push({ at: host.monotonicMs(), members: [...members] }),
      );
      const memberships = Array.from({ length: 95 }, (_, i) => rotation.join(i));
      expect(rotation.slotSizes()).toEqual([10, 10, 10, 10, 10, 9, 9, 9, 9, 9]);
      host.advance(100);
      // One serve per slot over the period, each with that slot's members only, one slot per serve.
      expect(served).toHaveLength(10);
      const all = served.flatMap((s) => s.members).sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: 95 }, (_, i) => i));
      expect(new Set(served.map((s) => s.at)).size).toBe(10);
      for (const s of served) expect(s.members.length).toBeLessThanOrEqual(10);
      // Leaving unevenly, then joining: the newcomers fill the emptiest slots.
      for (let i = 0; i < 50; i += 10) memberships[i].leave(); // five out of slot 0 (member i is in slot i % 10)
      expect(rotation.slotSizes()).toEqual([5, 10, 10, 10, 10, 9, 9, 9, 9, 9]);
      for (let i = 0; i < 5; i++) rotation.join(100 + i);
      const sizes = rotation.slotSizes();
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    });

    it('runs timers that fall in different ticks in different ticks', () => {
      const { host, clock } = setup();
      const ticks = new Map<number, number>();
      // 80 sessions with an 80 ms cadence, each with its own phase (1 ms apart, from 1 ms on).
      for (let s = 0; s < 80; s++) {
        const frame = (n: number) => () => {
          ticks.set(host.monotonicMs(), (ticks.get(host.monotonicMs()) ?? 0) + 1);
          if (n < 3) clock.setTimer(frame(n + 1), 80);
        };
        clock.setTimer(frame(0), s + 1);
      }
      host.advance(400);
      const counts = [...ticks.values()];
      expect(counts.reduce((a, b) => a + b, 0)).toBe(320);
      // 5 ms ticks over an 80 ms cadence: no tick serves more than its 5 sessions' frames.
      expect(Math.max(...counts)).toBeLessThanOrEqual(5);
    });
  });

  describe('slow ticks', () => {
    it('yields to I/O when a turn runs out of budget, and goes on where it stopped', () => {
      const { host, clock } = setup({ turnBudgetMs: 4 });
      const fired: number[] = [];
      for (let i = 0; i < 20; i++) {
        clock.setTimer(() => {
          fired.push(i);
          host.spend(1); // each callback takes 1 ms
        }, 5);
      }
      host.step(); // the turn of the tick they are due at
      expect(fired).toEqual([0, 1, 2, 3]);
      expect(clock.stats().yields).toBe(1);
      host.step(); // a "soon" wake-up: after I/O, the same turn goes on
      expect(host.wokenSoon).toBe(1);
      expect(fired).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      host.advance(0);
      expect(fired).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it('after yielding, goes on for as long as the I/O in between took: a clock behind catches up', () => {
      const { host, clock } = setup({ turnBudgetMs: 4 });
      const fired: number[] = [];
      for (let i = 0; i < 40; i++) {
        clock.setTimer(() => {
          fired.push(i);
          host.spend(1); // each callback takes 1 ms
        }, 5);
      }
      host.step(); // the first turn: its 4 ms budget
      expect(fired).toHaveLength(4);
      host.spend(10); // the I/O it yielded to took 10 ms (a backlog of input after a stall)
      host.step(); // going on: as long as that I/O took
      expect(fired).toHaveLength(14);
      expect(clock.stats().yields).toBe(2);
      host.spend(2); // a short pass of I/O: the budget is back to 4 ms
      host.step();
      expect(fired).toHaveLength(18);
      host.advance(0);
      expect(fired).toEqual(Array.from({ length: 40 }, (_, i) => i));
    });

    it('serves a late tick once: a rotation member runs once per period however long the stall', () => {
      const { host, clock } = setup();
      const runs: number[] = [];
      const rotation = clock.rotation<number>(50, 5, (members) => runs.push(...members));
      for (let i = 0; i < 5; i++) rotation.join(i);
      let ticksOfTimer = 0;
      clock.setTimer(() => {
        ticksOfTimer++;
        host.spend(400); // a 400 ms stall: eight periods of the rotation
      }, 1);
      host.advance(5);
      // The stall: each member at most once per period missed, not a burst of queued periods.
      runs.length = 0;
      host.advance(0);
      expect(ticksOfTimer).toBe(1);
      const perMember = new Map<number, number>();
      for (const m of runs) perMember.set(m, (perMember.get(m) ?? 0) + 1);
      for (const n of perMember.values()) expect(n).toBeLessThanOrEqual(400 / 50 + 1);
      // And after catching up the clock keeps its cadence: one serve per member per period.
      runs.length = 0;
      host.advance(50);
      expect(runs.sort()).toEqual([0, 1, 2, 3, 4]);
    });

    it('after a stall longer than the wheel span serves every due timer and every slot once', () => {
      const { host, clock } = setup({ wheelBuckets: 16 }); // span 80 ms
      const runs: string[] = [];
      const rotation = clock.rotation<string>(40, 4, (members) => runs.push(...members));
      for (const m of ['p', 'q', 'r', 's']) rotation.join(m);
      clock.setTimer(() => runs.push('t1'), 30);
      clock.setTimer(() => runs.push('t2'), 60);
      clock.setTimer(() => runs.push('later'), 10_000);
      host.spend(1000); // the process was suspended: no wake-up ran
      host.step();
      expect(runs.filter((r) => r.startsWith('t'))).toEqual(['t1', 't2']);
      expect(runs.filter((r) => r.length === 1).sort()).toEqual(['p', 'q', 'r', 's']);
      expect(runs).not.toContain('later');
      expect(clock.stats().timers).toBe(1);
    });
  });

  describe('leaving', () => {
    it('a member that leaves is not served again, and an empty clock arms no timer', () => {
      const { host, clock } = setup();
      const runs: string[] = [];
      const rotation = clock.rotation<string>(20, 2, (members) => runs.push(...members));
      const a = rotation.join('a');
      const b = rotation.join('b');
      const timer = clock.setTimer(() => runs.push('timer'), 100);
      host.advance(20);
      expect(runs.sort()).toEqual(['a', 'b']);
      a.leave();
      a.leave(); // twice: harmless
      runs.length = 0;
      host.advance(20);
      expect(runs).toEqual(['b']);
      b.leave();
      clock.clearTimer(timer);
      expect(clock.stats()).toMatchObject({ timers: 0, members: 0 });
      host.advance(20); // the wake-up already armed runs once and arms nothing more
      expect(host.pending).toBe(0);
      const woken = host.woken;
      host.advance(1000);
      expect(host.woken).toBe(woken);
      expect(runs).toEqual(['b']);
    });

    it('a member leaving while its slot is queued is skipped; stop() drops everything', () => {
      const { host, clock } = setup();
      const runs: string[] = [];
      const rotation = clock.rotation<string>(10, 1, (members) => runs.push(...members));
      const a = rotation.join('a');
      clock.setTimer(() => a.leave(), 10); // due in the same tick as the slot, and set first
      rotation.join('b');
      host.advance(10);
      expect(runs).toEqual(['b']);
      clock.setTimer(() => runs.push('timer'), 5);
      clock.stop();
      host.advance(100);
      expect(runs).toEqual(['b']);
      expect(host.pending).toBe(0);
    });
  });
});
