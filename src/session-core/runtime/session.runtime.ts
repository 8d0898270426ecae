/**
 * The thin I/O driver of one session: owns the machine, the engine link, the output pacer and
 * the timers, and carries out the machine's effects through the ports. Dialects call the input
 * methods; the gateway reports the socket's end and asks for server-side ends (DELETE, shutdown).
 *
 * Ordering rules that matter:
 * - Effects run in order. A machine call made while effects are running (an engine event
 *   delivered synchronously from pushAudio, say) has its effects run right after.
 * - Client events (and a dialect's own requests) that arrive during a start or an engine reopen are
 *   held and replayed after it, in order (command-hold.ts; one such wait at a time).
 * - A session's fault stays in it: an effect that throws, a rejected start or reopen, or a throwing
 *   dialect handler (`fault()`) ends this session with `internal_error`, never the process.
 * - Meter batches are written one at a time, in seq order, and all of them before the session
 *   is recorded closed; `closed` goes out only after that record. What the dialect bills as the
 *   session begins to end (`onEnding`: a conversation's response cut by the end) is among them.
 */
import type { ResponseRequest, ResponseSink } from '../engine/engine.port';
import type { CloseCause } from '../model/close-causes';
import type { OutputPacer } from './output-pacer';
import { systemClock, type ClockPort, type LoggerPort, type TimerHandle } from './ports';
import { CommandHold } from './command-hold';
import { EngineLink } from './engine-link';
import { MeterWriter } from './meter-writer';
import { DEFAULT_RUNTIME_TUNING, type RuntimeTuning, type SessionRuntimeOptions } from './runtime-options';
import { RuntimeGuards } from './runtime-guards';
import { RuntimeCallQueue, errorText, outputPacerFor } from './runtime-support';
import { dispatchCommand, type SessionCommand } from '../model/session.commands';
import type { Effect } from '../model/session.effects';
import type { ServerEvent } from '../model/session.events';
import { SessionMachine, type SessionPhase, type StartFailure } from '../machine/session.machine';
import {
  DEFAULT_SESSION_LIMITS,
  type SessionConfig,
  type SessionLimits,
  type TextTokens,
} from '../model/session.types';

export type { SessionRuntimeOptions } from './runtime-options';

const silentLogger: LoggerPort = { warn: () => undefined, error: () => undefined };
const NO_OUTPUT = { framesSent: 0, framesDropped: 0, warnings: 0 };

export class SessionRuntime {
  readonly sessionId: string;
  /** Resolves once the session has ended and, if it started, was recorded closed. */
  readonly done: Promise<void>;
  private readonly machine: SessionMachine;
  private readonly clock: ClockPort;
  private readonly log: LoggerPort;
  private readonly limits: SessionLimits;
  private readonly tuning: RuntimeTuning;
  private readonly calls = new RuntimeCallQueue(
    (effect) => this.execute(effect),
    (effect, error) => this.guards.fault(error, `effect ${effect.kind}`),
  );
  private readonly engine: EngineLink;
  private pacer: OutputPacer | null = null;
  private expiryTimer: TimerHandle | null = null;
  private readonly hold: CommandHold;
  private readonly guards: RuntimeGuards;
  private transportOpen = true;
  private overflowed = false;
  private readonly meters: MeterWriter;
  private engineClosed: Promise<void> = Promise.resolve();
  private markDone: () => void = () => undefined;

  constructor(private readonly options: SessionRuntimeOptions) {
    this.sessionId = options.sessionId;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...options.limits };
    this.tuning = { ...DEFAULT_RUNTIME_TUNING, ...options.tuning };
    this.machine = new SessionMachine(options.sessionId, this.limits);
    this.meters = new MeterWriter(
      options.sessionId,
      options.meter,
      this.clock,
      this.log,
      this.tuning.meterRetryDelaysMs,
    );
    this.guards = new RuntimeGuards(options.sessionId, this.clock, this.log, this.limits, this.tuning.maxHeldEvents, {
      abort: (failure, cause) => this.run(this.machine.abort(failure, cause)),
      dropHeld: () => this.hold.drop(),
    });
    this.engine = new EngineLink(
      options.sessionId,
      options.engine,
      this.clock,
      this.log,
      this.tuning.engineCloseTimeoutMs,
      {
        event: (event) => this.run(this.machine.engineEvent(event)),
        lost: (cause) => this.run(this.machine.close(cause)),
      },
    );
    this.hold = new CommandHold(this.tuning.maxHeldEvents, {
      dispatchNow: (command) => this.run(dispatchCommand(this.machine, command, this.clock.now())),
      run: (effects) => this.run(effects),
      ended: () => this.machine.phase === 'closing' || this.machine.phase === 'closed',
      overflow: () => this.guards.overLimit('held_events'),
    });
    this.done = new Promise((resolve) => (this.markDone = resolve));
  }

  get phase(): SessionPhase {
    return this.machine.phase;
  }

  /** A client event, parsed by the dialect. Held while a start or reopen is in flight, then replayed in order. */
  handle(command: SessionCommand): void {
    if (this.guards.admits(command)) this.hold.dispatch(command);
  }

  /** A dialect's own request: run now, or held in order with the commands during a start or reopen. */
  inOrder(work: () => void): void {
    this.hold.dispatch(work);
  }

  /** The socket's control-message allowance as it stands (Realtime's `rate_limits.updated` reports it). */
  controlAllowance(): { limit: number; remaining: number; resetSeconds: number } {
    return this.guards.controlAllowance();
  }

  /**
   * A control message the dialect handles itself (Deepgram's KeepAlive, a conversation's items): it
   * costs the control rate like any other. False when it must be dropped: the limit is broken.
   */
  control(): boolean {
    return this.guards.control();
  }

  /** An uncaught failure in this session's work: logged, `internal_error`, the session ends. Idempotent. */
  fault(error: unknown, where = 'handler'): void {
    this.guards.fault(error, where);
  }

  /** The socket is gone: recorded `connection_lost` unless the session was already ending. */
  transportClosed(): void {
    if (!this.transportOpen) return;
    this.transportOpen = false;
    this.run(this.machine.close({ kind: 'transport_lost' }));
  }

  /**
   * A frame the dialect made itself (Realtime `session.created`, Deepgram `UtteranceEnd`): sent after
   * the effects in flight, in order with the session's own events; dropped once the socket closed.
   */
  sendDialectFrame(frame: string | Buffer): void {
    this.run([{ kind: 'dialect_frame', frame }]);
  }

  /** A dialect's own work (a conversation's delivery) after the effects in flight; skipped once the socket closed. */
  afterEffects(work: () => void): void {
    this.run([{ kind: 'dialect_call', work }]);
  }

  /**
   * The client closed the socket cleanly (1000): for the Realtime and Deepgram dialects that is the
   * end it asked for (`close_requested`), taken in order after the commands still held.
   */
  clientClosed(): void {
    if (!this.transportOpen) return;
    this.transportOpen = false;
    this.handle({ type: 'close' });
  }

  /** Server-side end (DELETE → `deleted`, SIGTERM → `shutdown`); resolves once recorded. */
  end(cause: CloseCause): Promise<void> {
    this.run(this.machine.close(cause));
    return this.done;
  }

  /**
   * Conversation sessions: whether the client may have the response it asked for now (the response
   * rate): null, or the refusal to answer it with. The session goes on either way.
   */
  refuseResponse(): { code: 'rate_limit_exceeded'; message: string } | null {
    return this.guards.refuseResponse();
  }

  /** Conversation sessions: asks the engine for a response; false when no stream can (not started, ended, no respond()). */
  respond(request: ResponseRequest, sink: ResponseSink): boolean {
    return this.engine.respond(request, sink);
  }

  /** Conversation sessions: a response's text tokens, billed in the session's next meter batch. */
  meterText(tokens: TextTokens): void {
    this.run(this.machine.meterText(tokens));
  }

  /** Conversation sessions: stops a response the engine is producing (its sink hears `cancelled`). */
  cancelResponse(responseId: string): void {
    this.engine.call((stream) => stream.cancelResponse?.(responseId));
  }

  private run(effects: readonly Effect[]): void {
    this.calls.run(effects);
    if (this.machine.phase === 'closed' && !this.calls.busy) this.markDone();
  }

  private execute(effect: Effect): void {
    switch (effect.kind) {
      case 'emit':
        return this.send(effect.event);
      case 'open_session':
        return this.guards.background(this.openSession(effect.config), 'start');
      case 'schedule_expiry':
        return this.scheduleExpiry(effect.atMs);
      case 'engine_push':
        this.guards.frameAccepted();
        return this.engine.call((stream) => stream.pushAudio(effect.frame));
      case 'engine_commit':
        return this.engine.call((stream) => stream.commit());
      case 'engine_clear':
        return this.engine.call((stream) => stream.clear());
      case 'engine_interrupt':
        return this.engine.call((stream) => stream.interrupt());
      case 'engine_prepare':
        return this.engine.call((stream) => stream.prepareResponse?.(effect.transcript));
      case 'engine_discard_prepared':
        return this.engine.call((stream) => stream.discardPreparedResponse?.());
      case 'ending':
        return this.options.onEnding?.();
      case 'engine_close':
        this.engineClosed = this.engine.close();
        return;
      case 'meter':
        return this.meters.write(effect.batch);
      case 'output_audio':
        return this.pacer?.pushAudio(effect.itemId, effect.pcm);
      case 'output_transcript':
        return this.pacer?.pushTranscript(effect);
      case 'output_end':
        return this.pacer?.endItem(effect.itemId);
      case 'output_flush':
        return this.pacer?.flush();
      case 'output_hold':
        return this.pacer?.hold();
      case 'output_release':
        return this.pacer?.release();
      case 'finalize':
        return this.guards.background(this.finalize(effect), 'close');
      case 'transport_close':
        return this.closeTransport(effect.code, effect.reason);
      case 'reopen_engine':
        return this.guards.background(this.reopenEngine(effect.config), 'engine reopen');
      case 'dialect_frame':
        return this.sendFrame(effect.frame);
      case 'dialect_call':
        if (this.transportOpen) effect.work();
        return;
    }
  }

  private send(event: ServerEvent): void {
    if (!this.transportOpen) return;
    const rendered = this.options.renderer.render(event);
    if (rendered === null) return;
    if (typeof rendered === 'string' || Buffer.isBuffer(rendered)) return this.sendFrame(rendered);
    for (const frame of rendered) this.sendFrame(frame);
  }

  private sendFrame(frame: string | Buffer): void {
    if (!this.transportOpen) return;
    const { transport } = this.options;
    try {
      transport.send(frame);
    } catch (error) {
      this.log.warn(`session ${this.sessionId}: send failed: ${errorText(error)}`);
      return this.transportClosed();
    }
    if (!this.overflowed && transport.bufferedAmount > this.tuning.hardBacklogBytes) {
      this.overflowed = true;
      this.run(this.machine.close({ kind: 'client_not_reading' }));
    }
  }

  private openSession(config: SessionConfig): Promise<void> {
    return this.hold.around(async () => {
      try {
        return await this.activate(config);
      } catch (error) {
        this.log.error(`session ${this.sessionId}: start failed: ${errorText(error)}`);
        return this.machine.startFailed({ code: 'internal_error', message: 'the session could not be started' });
      }
    });
  }

  private async activate(config: SessionConfig): Promise<readonly Effect[]> {
    const opened = await this.engine.openForStart(config);
    if (!opened.ok) return this.machine.startFailed(opened.failure);
    const { stream } = opened;
    const startedAtMs = this.clock.now();
    const expiresAtMs = startedAtMs + this.limits.maxSessionMs;
    let refusal: StartFailure | null = null;
    try {
      const result = await this.options.store.activate(this.sessionId, { config, startedAtMs, expiresAtMs });
      if (!result.ok) refusal = result;
    } catch (error) {
      this.log.error(`session ${this.sessionId}: activation failed: ${errorText(error)}`);
      refusal = { code: 'internal_error', message: 'the session could not be started' };
    }
    if (refusal !== null) {
      await this.engine.discard(stream);
      return this.machine.startFailed(refusal);
    }
    this.engine.attach(stream);
    this.guards.watchIdle(() => this.run(this.machine.close({ kind: 'idle' })));
    this.pacer = outputPacerFor(this.tuning, {
      clock: this.clock,
      originMs: startedAtMs,
      emit: (event) => this.send(event),
      drained: (itemId) => this.run(this.machine.outputDrained(itemId)),
      backlog: () => this.options.transport.bufferedAmount,
    });
    return this.machine.startSucceeded(startedAtMs);
  }

  /** Commands that arrive meanwhile are held, as during a start, so appends reach the new stream. */
  private reopenEngine(config: SessionConfig): Promise<void> {
    return this.hold.around(async () => {
      try {
        const stream = await this.engine.replace(config);
        if (this.machine.phase !== 'started') {
          // The session ended while the stream opened: nothing will be heard on it.
          await this.engine.discard(stream);
          return [];
        }
        this.engine.attach(stream);
        await this.options.store.reconfigure?.(this.sessionId, config).catch((error: unknown) => {
          this.log.warn(`session ${this.sessionId}: recording the new configuration failed: ${errorText(error)}`);
        });
        return this.machine.engineReopened();
      } catch (error) {
        this.log.error(`session ${this.sessionId}: reopening the engine failed: ${errorText(error)}`);
        this.engine.lose({ kind: 'engine_failed', message: errorText(error) });
        return [];
      }
    });
  }

  private scheduleExpiry(atMs: number): void {
    this.expiryTimer = this.clock.setTimer(() => {
      this.expiryTimer = null;
      const effects = this.machine.tick(this.clock.now());
      // A timer may fire a hair early against the wall clock: try again at the deadline.
      if (effects.length === 0 && this.machine.phase === 'started') this.scheduleExpiry(atMs);
      else this.run(effects);
    }, atMs - this.clock.now());
  }

  /** Whatever fails on the way, the session is finalized: its `done` must resolve and its socket end. */
  private async finalize(closing: Extract<Effect, { kind: 'finalize' }>): Promise<void> {
    try {
      this.guards.stopIdle();
      this.pacer?.stop();
      if (this.expiryTimer !== null) this.clock.clearTimer(this.expiryTimer);
      this.expiryTimer = null;
      await this.engineClosed;
      await this.meters.settled();
      const { reason, detail, usage } = closing;
      await this.options.store.close(this.sessionId, { reason, detail, usage, endedAtMs: this.clock.now() });
    } catch (error) {
      this.log.error(`session ${this.sessionId}: recording the close failed: ${errorText(error)}`);
    }
    this.run(this.machine.finalized(this.clock.now(), this.pacer?.stats ?? NO_OUTPUT));
  }

  private closeTransport(code: number, reason: string): void {
    if (!this.transportOpen) return;
    this.transportOpen = false;
    try {
      this.options.transport.close(code, reason);
    } catch (error) {
      this.log.warn(`session ${this.sessionId}: transport close: ${errorText(error)}`);
    }
  }
}
