/**
 * One clock for every session's periodic work (issue 26): a single timer ticks every `tickMs`, and
 * each tick serves only its share.
 *
 * - One-shot timers (a pacer's next frame, a hold, an expiry, a retry) sit in a hashed timing
 *   wheel: a timer due at time t waits in the bucket of tick ⌈t / tickMs⌉ and runs when that tick
 *   is served, in due order, never early. Each session's cadence keeps its own phase (a pacer's
 *   frames stay 80 ms apart from wherever its reply began), so sessions spread over the buckets and
 *   a tick runs only the timers that fall in it. Setting and clearing a timer is O(1) (an intrusive
 *   list per bucket); a timer further off than the wheel's span waits its rounds in its bucket.
 * - Periodic work (keep-alive pings, heartbeats) joins a Rotation: members are spread evenly over
 *   the rotation's slots (a new member takes the emptiest slot) and each slot is served once per
 *   period, at its own tick, with its own members only. Leaving is O(1).
 *
 * Slow ticks do not pile up: a turn of the clock serves the ticks that have come due, in order,
 * for at most `turnBudgetMs`, then yields to I/O (setImmediate) and goes on where it stopped; the
 * turn that goes on may run as long as the I/O in between took (see turn()), so a clock that fell
 * behind catches up instead of getting 4 ms per pass of the loop while the input backlog gets all it
 * wants. A tick is served once however late it is, so a rotation's member runs at most once per period and
 * a late timer runs once. A clock that fell further behind than the wheel's span (a suspended
 * process) serves everything due in one pass instead of tick by tick. With nothing scheduled, no
 * timer is armed at all.
 *
 * It answers the session core's ClockPort (now / setTimer / clearTimer) as it is: the gateway hands
 * this one instance to every session runtime. Time comes from a ClockHost, so tests drive it by hand.
 */

import { type ClockHost, processClockHost } from './clock-host';
import { Rotation, type SlotTask } from './rotation';
import { TimerEntry, TimerWheel } from './timer-wheel';

export interface TickSchedulerOptions {
  /**
   * The tick: how finely timers are served (and the most a timer runs late by, on an idle loop).
   * Default 1: a timer runs at most 1 ms after it is due (plus what the loop makes it wait). With 5 ms
   * ticks every output frame waited ~2.5 ms for its tick on average (socket bench at 1,000 sessions:
   * the wheel served pacer frames p50 3.7 ms after their due time; 1.3 ms with 1 ms ticks). At a few
   * hundred live replies something is due nearly every millisecond anyway, so the finer tick costs
   * few extra wake-ups.
   */
  readonly tickMs?: number;
  /** Buckets of the wheel, a power of two; span = wheelBuckets × tickMs. Default 4096 (about 4 s at 1 ms ticks). */
  readonly wheelBuckets?: number;
  /**
   * A turn serving due ticks yields to I/O after this long (or, going on after a yield, after as long
   * as that I/O took, if longer). Default 4.
   */
  readonly turnBudgetMs?: number;
  readonly host?: ClockHost;
}

export interface TickSchedulerStats {
  /** One-shot timers waiting. */
  readonly timers: number;
  /** Members of all rotations. */
  readonly members: number;
  /** Ticks served so far. */
  readonly ticks: number;
  /** Turns (wake-ups) so far. */
  readonly turns: number;
  /** Turns that stopped on their budget with work left (and went on after I/O). */
  readonly yields: number;
  /** Timer callbacks and rotation slots run so far. */
  readonly fired: number;
}

type Task = TimerEntry | SlotTask;

/** How far ahead an idle-ish clock looks for its next tick with work: at most one empty wake-up per this many ticks. */
const LOOKAHEAD_TICKS = 64;

export class TickScheduler {
  readonly tickMs: number;
  private readonly host: ClockHost;
  private readonly turnBudgetMs: number;
  private readonly wheel: TimerWheel;
  private readonly rotations: Rotation<unknown>[] = [];
  /** Tasks taken out of served ticks, run in order; `readyAt` is the next to run. */
  private ready: Task[] = [];
  private readyAt = 0;
  /** The last tick served. */
  private served: number;
  private cancelWake: (() => void) | null = null;
  private seq = 0;
  private memberCount = 0;
  private running = false;
  /** The tick the armed wake-up is for. */
  private wakeTick = 0;
  /** When the last turn stopped on its budget with work left; -1 when it finished. */
  private yieldedAt = -1;
  private counters = { ticks: 0, turns: 0, yields: 0, fired: 0 };

  constructor(options: TickSchedulerOptions = {}) {
    this.tickMs = options.tickMs ?? 1;
    if (!(this.tickMs > 0)) throw new Error('tickMs must be positive');
    this.wheel = new TimerWheel(options.wheelBuckets ?? 4096);
    this.turnBudgetMs = options.turnBudgetMs ?? 4;
    this.host = options.host ?? processClockHost;
    this.served = this.currentTick();
  }

  /** Epoch milliseconds (ClockPort). */
  now(): number {
    return this.host.epochMs();
  }

  /** Runs `callback` once, at the first tick at or after `delayMs` from now (ClockPort). */
  setTimer(callback: () => void, delayMs: number): TimerEntry {
    this.wakeFromIdle();
    const due = this.host.monotonicMs() + Math.max(0, delayMs);
    // Never into a tick already served (or being served): the next one.
    const tick = Math.max(Math.ceil(due / this.tickMs), this.served + 1);
    const entry = new TimerEntry(due, tick, this.seq++, callback);
    this.wheel.add(entry);
    this.armBy(tick);
    return entry;
  }

  /** Cancels a timer from setTimer(); a timer that fired already, or a foreign handle, is ignored (ClockPort). */
  clearTimer(handle: unknown): void {
    if (!(handle instanceof TimerEntry) || handle.cancelled) return;
    handle.cancelled = true;
    this.wheel.remove(handle);
  }

  /**
   * Periodic work spread over `slots` slots of one period: each member runs once per period, at
   * its slot's tick, by `serve(membersOfTheSlot)` (one call per slot, so a slot's members can share
   * one query). Slots are at least one tick apart.
   */
  rotation<T>(periodMs: number, slots: number, serve: (members: readonly T[]) => void): Rotation<T> {
    const slotTicks = Math.max(1, Math.round(periodMs / slots / this.tickMs));
    const rotation = new Rotation<T>(
      (delta) => this.membersChanged(delta),
      Math.max(1, Math.floor(slots)),
      slotTicks,
      serve,
    );
    this.rotations.push(rotation as Rotation<unknown>);
    return rotation;
  }

  stats(): TickSchedulerStats {
    return { timers: this.wheel.size, members: this.memberCount, ...this.counters };
  }

  /** Stops the clock: every timer and member is dropped (the application is shutting down). */
  stop(): void {
    this.wheel.clear();
    for (const task of this.ready) if (task instanceof TimerEntry) task.cancelled = true;
    this.ready = [];
    this.yieldedAt = -1;
    this.readyAt = 0;
    for (const rotation of this.rotations) rotation.clear();
    this.memberCount = 0;
    this.cancelWake?.();
    this.cancelWake = null;
  }

  private membersChanged(delta: number): void {
    if (delta > 0) this.wakeFromIdle();
    this.memberCount += delta;
    if (delta > 0) this.armBy(this.served + 1);
  }

  /** An idle clock holds nothing: it starts again from the current tick instead of serving the idle ones. */
  private wakeFromIdle(): void {
    if (this.idle && !this.running) this.served = Math.max(this.served, this.currentTick());
  }

  private currentTick(): number {
    return Math.floor(this.host.monotonicMs() / this.tickMs);
  }

  private get idle(): boolean {
    return this.wheel.size === 0 && this.memberCount === 0 && this.readyAt >= this.ready.length;
  }

  /**
   * Makes sure a wake-up is coming: soon when work is already due, else at the next tick that has a
   * timer or a rotation slot with members (looking LOOKAHEAD_TICKS ahead at most), so that a clock
   * with little to do does not wake on every empty tick.
   */
  private arm(): void {
    if (this.running || this.cancelWake !== null || this.idle) return;
    const now = this.host.monotonicMs();
    const behind = this.readyAt < this.ready.length || Math.floor(now / this.tickMs) > this.served;
    if (behind) {
      this.wakeTick = this.served;
      this.cancelWake = this.host.wakeSoon(this.turn);
      return;
    }
    this.wakeTick = this.nextBusyTick();
    this.cancelWake = this.host.wakeAfter(Math.max(1, Math.ceil(this.wakeTick * this.tickMs - now)), this.turn);
  }

  /** A timer or a member was added for `tick`: the wake-up armed for a later tick comes sooner. */
  private armBy(tick: number): void {
    if (this.cancelWake !== null && !this.running && tick < this.wakeTick) {
      this.cancelWake();
      this.cancelWake = null;
    }
    this.arm();
  }

  /** The first tick after the served one with a timer in its bucket or a slot with members. */
  private nextBusyTick(): number {
    const last = this.served + LOOKAHEAD_TICKS;
    for (let tick = this.served + 1; tick < last; tick++) {
      if (this.wheel.busyAt(tick)) return tick;
      for (const rotation of this.rotations) if (rotation.taskAt(tick) !== null) return tick;
    }
    return last;
  }

  /**
   * One wake-up: serve the due ticks in order until done or out of budget.
   *
   * The budget is turnBudgetMs, or, for a turn going on after one that yielded, the time the loop
   * spent elsewhere since (the I/O it yielded to), if longer. A fixed budget alone starves the clock
   * when it falls behind (a GC pause, a stall, a busy machine): each pass of the loop then reads every
   * socket's backlog of input in full but sends only 4 ms of the output that came due, so output falls
   * further behind while input keeps up (socket bench, 1,000 sessions on a busy machine: turns hit the
   * budget and yielded ~100 times in 10 s and the wheel served pacer frames p99 1.1 s late, five times
   * the relay's output lateness). Sharing the loop about evenly between the two lets output catch up.
   */
  private readonly turn = (): void => {
    this.cancelWake = null;
    this.counters.turns++;
    const started = this.host.monotonicMs();
    const budget = this.yieldedAt >= 0 ? Math.max(this.turnBudgetMs, started - this.yieldedAt) : this.turnBudgetMs;
    this.yieldedAt = -1;
    const target = Math.floor(started / this.tickMs);
    this.running = true;
    try {
      // Far behind (longer than the wheel's span): everything due is served in one pass, not tick by tick.
      if (target - this.served >= this.wheel.span) this.collectAll(target);
      for (;;) {
        if (this.readyAt < this.ready.length) {
          const task = this.ready[this.readyAt];
          this.ready[this.readyAt++] = undefined as unknown as Task;
          this.counters.fired++;
          try {
            task.fire();
          } catch (error) {
            // One session's failure must not stop everyone's clock; it surfaces as Node would report it.
            queueMicrotask(() => {
              throw error;
            });
          }
        } else if (this.served < target) {
          this.ready.length = 0;
          this.readyAt = 0;
          this.collect(++this.served);
        } else break;
        if (this.host.monotonicMs() - started >= budget) break;
      }
      if (this.readyAt >= this.ready.length) {
        this.ready.length = 0;
        this.readyAt = 0;
      } else {
        this.counters.yields++;
        this.yieldedAt = this.host.monotonicMs();
      }
    } finally {
      this.running = false;
    }
    this.arm();
  };

  /** Takes tick `tick`'s due timers (in due order) and its rotation slots into the ready queue. */
  private collect(tick: number): void {
    this.counters.ticks++;
    const start = this.ready.length;
    this.wheel.takeDue(tick, this.ready);
    if (this.ready.length - start > 1) sortByDue(this.ready, start);
    for (const rotation of this.rotations) {
      const task = rotation.taskAt(tick);
      if (task !== null) this.ready.push(task);
    }
  }

  /** Catch-up after a long stall: every timer due by `target` and every slot once, then on from `target`. */
  private collectAll(target: number): void {
    this.ready.length = 0;
    this.readyAt = 0;
    this.wheel.takeAllDue(target, this.ready);
    sortByDue(this.ready, 0);
    for (const rotation of this.rotations) this.ready.push(...rotation.allTasks());
    this.counters.ticks++;
    this.served = target;
  }
}

function sortByDue(tasks: Task[], from: number): void {
  const part = (tasks.slice(from) as TimerEntry[]).sort((a, b) => a.due - b.due || a.seq - b.seq);
  for (let i = 0; i < part.length; i++) tasks[from + i] = part[i];
}
