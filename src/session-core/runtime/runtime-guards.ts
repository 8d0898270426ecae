/**
 * What keeps one session from harming more than itself: the limits a client can break (the control
 * rate, the bound on commands held during a start), the idle watch, and the fault path, so that
 * whatever fails in the session's work ends this session with `internal_error`, never the process.
 */
import type { CloseCause } from '../model/close-causes';
import type { SessionCommand } from '../model/session.commands';
import type { SessionLimits } from '../model/session.types';
import type { StartFailure } from '../machine/session.machine';
import { ControlRate } from './control-rate';
import { IdleWatch } from './idle-watch';
import type { ClockPort, LoggerPort } from './ports';

export type BrokenLimit = 'control_rate' | 'held_events';

export interface RuntimeGuardHooks {
  /** Ends the session: the client hears `failure`, the close is recorded as `cause`. */
  readonly abort: (failure: StartFailure, cause: Extract<CloseCause, { kind: 'policy' | 'internal_error' }>) => void;
  /** Refuses what is held for an in-flight start or reopen, before the session is ended. */
  readonly dropHeld: () => void;
}

export class RuntimeGuards {
  /** A limit was broken: the session is ending and nothing the client sends runs any more. */
  private limited = false;
  private readonly controlRate: ControlRate;
  private readonly responseRate: ControlRate;
  private idle: IdleWatch | null = null;

  constructor(
    private readonly sessionId: string,
    private readonly clock: ClockPort,
    private readonly log: LoggerPort,
    private readonly limits: SessionLimits,
    private readonly maxHeldEvents: number,
    private readonly hooks: RuntimeGuardHooks,
  ) {
    this.controlRate = new ControlRate(limits.controlBurst, limits.controlPerSecond, clock.now());
    this.responseRate = new ControlRate(limits.responseBurst, limits.responsesPerMinute / 60, clock.now());
  }

  /** A response the client asked for: null when it may run, else the refusal to answer it with. */
  refuseResponse(): { code: 'rate_limit_exceeded'; message: string } | null {
    const now = this.clock.now();
    if (this.responseRate.take(now)) return null;
    const { resetSeconds, limit } = this.responseRate.allowance(now);
    const waitSeconds = Math.max(1, Math.ceil(resetSeconds - (limit - 1) / (this.limits.responsesPerMinute / 60)));
    return {
      code: 'rate_limit_exceeded',
      message: `more than ${this.limits.responseBurst} responses at once or ${this.limits.responsesPerMinute} a minute on this session; retry in ${waitSeconds} s`,
    };
  }

  /**
   * Whether a client command may run: appends are paced by the input rate, the rest cost the control
   * rate. A socket's implicit start is the server's, not a client message, and costs nothing.
   */
  admits(command: SessionCommand): boolean {
    if (command.type === 'start' && command.implicit === true) return true;
    if (command.type !== 'append') return this.control();
    return !this.limited;
  }

  /**
   * A whole frame of input audio was accepted (and metered): only that keeps the session from idling,
   * so appends of a few samples, billed nothing until they make a frame, do not keep it alive.
   */
  frameAccepted(): void {
    this.idle?.seen();
  }

  controlAllowance(): { limit: number; remaining: number; resetSeconds: number } {
    return this.controlRate.allowance(this.clock.now());
  }

  control(): boolean {
    if (this.limited) return false;
    if (this.controlRate.take(this.clock.now())) return true;
    this.overLimit('control_rate');
    return false;
  }

  overLimit(limit: BrokenLimit): void {
    const message =
      limit === 'control_rate'
        ? `more than ${this.limits.controlBurst} control messages at once, or over ${this.limits.controlPerSecond} a second; the session ends`
        : `more than ${this.maxHeldEvents} events sent while the session was starting; the session ends`;
    this.limited = true;
    this.hooks.dropHeld();
    this.hooks.abort({ code: 'rate_limit_exceeded', message }, { kind: 'policy', limit });
  }

  /** Only a started session idles out; a zero timeout turns the watch off. */
  watchIdle(onIdle: () => void): void {
    if (this.limits.idleTimeoutMs > 0) this.idle = new IdleWatch(this.clock, this.limits.idleTimeoutMs, onIdle);
  }

  stopIdle(): void {
    this.idle?.stop();
  }

  /** Logged with its stack, so a fault that ends a session can be traced; safe to call twice. */
  fault(error: unknown, where: string): void {
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.log.error(`session ${this.sessionId}: ${where} failed: ${stack}`);
    this.hooks.abort(
      { code: 'internal_error', message: 'the session failed on the server and was ended' },
      { kind: 'internal_error' },
    );
  }

  /** Asynchronous work of the session: a rejection ends this session, never goes unhandled. */
  background(work: Promise<void>, what: string): void {
    work.catch((error: unknown) => this.fault(error, what));
  }
}
