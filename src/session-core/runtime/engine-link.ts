/**
 * A session's engine stream through its life: opened at the start, replaced when turn detection
 * changes, closed at the end. Every close is time-limited, since an engine that never answers must
 * not hold the session's end. A call that throws, or a fatal error the engine reports, loses the
 * stream, and losing it ends the session (`lost`), once.
 */
import {
  EngineCapacityError,
  type EngineEvent,
  type EngineStream,
  type ResponseRequest,
  type ResponseSink,
  type SpeechEngine,
} from '../engine/engine.port';
import type { StartFailure } from '../machine/session.machine';
import type { CloseCause } from '../model/close-causes';
import type { SessionConfig } from '../model/session.types';
import type { ClockPort, LoggerPort } from './ports';
import { engineConfigOf, errorText, timeLimit } from './runtime-support';

export interface EngineLinkHooks {
  readonly event: (event: EngineEvent) => void;
  /** The stream is unusable: the session ends with this cause. */
  readonly lost: (cause: CloseCause) => void;
}

export class EngineLink {
  private stream: EngineStream | null = null;
  private broken = false;

  constructor(
    private readonly sessionId: string,
    private readonly engine: SpeechEngine,
    private readonly clock: ClockPort,
    private readonly log: LoggerPort,
    private readonly closeTimeoutMs: number,
    private readonly hooks: EngineLinkHooks,
  ) {}

  /** A new stream for `config`, not yet in use (`attach` it, or `discard` it). Rejects as the engine does. */
  open(config: SessionConfig): Promise<EngineStream> {
    return this.engine.open(engineConfigOf(this.sessionId, config), this.onEvent);
  }

  /** A stream for the session's start, or why there is none (no capacity; the engine failed, logged). */
  async openForStart(
    config: SessionConfig,
  ): Promise<{ ok: true; stream: EngineStream } | { ok: false; failure: StartFailure }> {
    try {
      return { ok: true, stream: await this.open(config) };
    } catch (error) {
      if (error instanceof EngineCapacityError) {
        return {
          ok: false,
          failure: { code: 'capacity_exhausted', message: 'no speech engine capacity; retry later' },
        };
      }
      this.log.error(`session ${this.sessionId}: engine open failed: ${errorText(error)}`);
      return { ok: false, failure: { code: 'internal_error', message: 'the speech engine could not be opened' } };
    }
  }

  attach(stream: EngineStream): void {
    this.stream = stream;
  }

  /** Closes a stream that was never attached, or is no longer wanted; a failure is of no interest. */
  async discard(stream: EngineStream): Promise<void> {
    await timeLimit(stream.close(), this.closeTimeoutMs, this.clock).catch(() => undefined);
  }

  /** Closes the stream in use and opens one for `config`, not yet attached. Rejects when either fails. */
  async replace(config: SessionConfig): Promise<EngineStream> {
    const old = this.stream;
    this.stream = null; // a close meanwhile must not close it twice
    if (old !== null) await timeLimit(old.close(), this.closeTimeoutMs, this.clock);
    return this.open(config);
  }

  /** Calls the stream while it is usable; a call that throws loses it. */
  call(work: (stream: EngineStream) => void): void {
    if (this.stream === null || this.broken) return;
    try {
      work(this.stream);
    } catch (error) {
      const message = errorText(error);
      this.log.error(`session ${this.sessionId}: engine stream failed: ${message}`);
      this.lose({ kind: 'engine_failed', message });
    }
  }

  /** Asks for a response; false when there is no usable stream or it cannot respond. */
  respond(request: ResponseRequest, sink: ResponseSink): boolean {
    const stream = this.stream;
    if (stream === null || this.broken || stream.respond === undefined) return false;
    this.call((s) => s.respond!(request, sink));
    return true;
  }

  lose(cause: CloseCause): void {
    if (this.broken) return;
    this.broken = true;
    this.hooks.lost(cause);
  }

  /** The session's end: the stream in use is closed (a failure is logged) and forgotten. */
  async close(): Promise<void> {
    const stream = this.stream;
    if (stream === null) return;
    try {
      await timeLimit(stream.close(), this.closeTimeoutMs, this.clock);
    } catch (error) {
      this.log.warn(`session ${this.sessionId}: engine close: ${errorText(error)}`);
    }
    this.stream = null;
  }

  private readonly onEvent = (event: EngineEvent): void => {
    this.hooks.event(event);
    if (event.type === 'error' && event.fatal) this.lose({ kind: 'engine_unavailable', message: event.message });
  };
}
