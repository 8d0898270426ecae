/**
 * The session state machine shared by every socket dialect: awaiting_start → starting → started
 * → closing → closed. Pure: no I/O, no timers, no clock reads. Every input returns the effects its
 * driver must carry out, in order. `starting` is the wait for the driver's asynchronous part of a
 * start (engine stream, session row); the driver reports back with startSucceeded or startFailed.
 * User turns may be ended by the session's end-of-turn confidence (end-of-turn/session-turns.ts).
 */
import type { EndOfTurnSettings, EngineEvent } from '../engine/engine.port';
import { closeOutcome, type CloseCause, type CloseOutcome } from '../model/close-causes';
import { NO_EFFECTS, type Effect } from '../model/session.effects';
import { InputAudio } from './input-audio';
import { ack, REFUSALS, type Refusal } from './machine-replies';
import { sameEngineSettings, withChanges, withSessionChanges, withTurnSettings } from '../model/session-config-changes';
import { interruptsResponses, OutputTurns } from './output-turns';
import { SessionTurns } from '../end-of-turn/session-turns';
import { sessionStats } from './session-stats';
import {
  DEFAULT_SESSION_LIMITS,
  type OutputStats,
  type SessionConfig,
  type SessionConfigChanges,
  type SessionDescriptor,
  type SessionError,
  type SessionLimits,
  type TextTokens,
  type Usage,
} from '../model/session.types';

export type SessionPhase = 'awaiting_start' | 'starting' | 'started' | 'closing' | 'closed';

/** Why the driver could not start the session: a store refusal, no engine capacity, a failure. */
export type StartFailure = Pick<SessionError, 'code' | 'message'> & { readonly param?: string | null };

export class SessionMachine {
  private phaseNow: SessionPhase = 'awaiting_start';
  private descriptor: SessionDescriptor | null = null;
  private pendingConfig: SessionConfig | null = null;
  private startEventId: string | undefined;
  private startImplicit = false;
  /** An update waiting for its engine stream to be reopened. */
  private reopening: { readonly config: SessionConfig; readonly clientEventId?: string } | null = null;
  private pendingClose: CloseCause | null = null;
  private ending: (CloseOutcome & { readonly clientEventId?: string }) | null = null;
  private readonly limits: SessionLimits;
  private readonly input: InputAudio;
  private readonly output = new OutputTurns();
  private readonly userTurns = new SessionTurns(null);
  private turns = 0;
  private errors = 0;

  constructor(
    private readonly sessionId: string,
    limits: Partial<SessionLimits> = {},
  ) {
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...limits };
    this.input = new InputAudio(this.limits);
  }

  get phase(): SessionPhase {
    return this.phaseNow;
  }

  get session(): SessionDescriptor | null {
    return this.descriptor;
  }

  get usage(): Usage {
    return this.input.usage;
  }

  start(config: SessionConfig, clientEventId?: string, implicit = false): readonly Effect[] {
    switch (this.phaseNow) {
      case 'awaiting_start':
        this.phaseNow = 'starting';
        this.pendingConfig = config;
        this.startEventId = clientEventId;
        this.startImplicit = implicit;
        return [{ kind: 'open_session', config }];
      case 'starting':
      case 'started':
        return this.refuse('session_already_started', null, clientEventId);
      case 'closing':
      case 'closed':
        return this.gate(clientEventId) ?? NO_EFFECTS;
    }
  }

  startSucceeded(nowMs: number): readonly Effect[] {
    if (this.phaseNow !== 'starting' || this.pendingConfig === null) return NO_EFFECTS;
    const expiresAtMs = nowMs + this.limits.maxSessionMs;
    this.descriptor = { id: this.sessionId, config: this.pendingConfig, startedAtMs: nowMs, expiresAtMs };
    this.userTurns.configure(this.pendingConfig.turnDetection?.endOfTurn ?? null);
    this.phaseNow = 'started';
    const out: Effect[] = [
      ack({ type: 'started', session: this.descriptor }, this.startEventId),
      { kind: 'schedule_expiry', atMs: expiresAtMs },
    ];
    return this.pendingClose === null ? out : out.concat(this.close(this.takePendingClose()));
  }

  startFailed(failure: StartFailure): readonly Effect[] {
    if (this.phaseNow !== 'starting') return NO_EFFECTS;
    this.phaseNow = 'awaiting_start';
    this.pendingConfig = null;
    const param = failure.param ?? null;
    const origin = failure.code === 'capacity_exhausted' || failure.code === 'internal_error' ? 'server' : 'client';
    const out: Effect[] = this.error(failure.code, failure.message, param, this.startEventId, origin);
    if (this.startImplicit) {
      // The client has no start to send again: end the socket (there is no session to report).
      this.phaseNow = 'closed';
      this.pendingClose = null;
      const { closeCode, detail } = closeOutcome({ kind: 'start_failed', code: failure.code });
      if (closeCode !== null) out.push({ kind: 'transport_close', code: closeCode, reason: detail });
      return out;
    }
    return this.pendingClose === null ? out : out.concat(this.close(this.takePendingClose()));
  }

  /**
   * Acknowledges with the session as it now is. Engine settings can change only until audio has
   * been appended: the stream is then reopened (nothing was heard, so nothing is lost); after
   * that an engine stream cannot be reconfigured and the change is refused.
   */
  update(clientEventId?: string, changes?: SessionConfigChanges, param?: string): readonly Effect[] {
    const refused = this.gate(clientEventId);
    if (refused !== null || this.descriptor === null) return refused ?? NO_EFFECTS;
    const current = this.descriptor.config;
    const next = changes === undefined ? current : withChanges(current, changes);
    if (sameEngineSettings(current, next)) {
      this.descriptor = { ...this.descriptor, config: withSessionChanges(current, changes) };
      return [ack({ type: 'updated', session: this.descriptor }, clientEventId)];
    }
    if (this.input.heard) return this.refuse('session_config_locked', param ?? null, clientEventId);
    this.reopening = clientEventId === undefined ? { config: next } : { config: next, clientEventId };
    return [{ kind: 'reopen_engine', config: next }];
  }

  /** The driver reopened the engine stream for the pending update. */
  engineReopened(): readonly Effect[] {
    const reopening = this.reopening;
    this.reopening = null;
    if (reopening === null || this.descriptor === null || this.phaseNow !== 'started') return NO_EFFECTS;
    this.descriptor = { ...this.descriptor, config: reopening.config };
    this.userTurns.configure(reopening.config.turnDetection?.endOfTurn ?? null);
    return [ack({ type: 'updated', session: this.descriptor }, reopening.clientEventId)];
  }

  /** End-of-turn thresholds live in the session core: they change at once, audio or not. */
  configureTurns(settings: EndOfTurnSettings): readonly Effect[] {
    const refused = this.gate();
    if (refused !== null || this.descriptor === null) return refused ?? NO_EFFECTS;
    this.descriptor = withTurnSettings(this.descriptor, settings);
    if (this.descriptor.config.turnDetection?.endOfTurn) this.userTurns.configure(settings);
    return NO_EFFECTS;
  }

  appendAudio(bytes: Buffer, nowMs: number, clientEventId?: string): readonly Effect[] {
    // Audio already on its way when the session began to end (a DELETE, the expiry) is no mistake of
    // the client's: it is dropped unheard and unmetered, so that the first error such a client hears
    // is the end's own reason (Realtime `session_deleted`), which clients take as fatal.
    if (this.phaseNow === 'closing') return NO_EFFECTS;
    const refused = this.gate(clientEventId);
    if (refused !== null) return refused;
    if (bytes.length === 0) return NO_EFFECTS;
    if (bytes.length % 2 !== 0) return this.refuse('invalid_audio', 'audio', clientEventId);
    const out: Effect[] = [];
    this.input.append(bytes, nowMs, out);
    return out;
  }

  commit(clientEventId?: string): readonly Effect[] {
    const refused = this.gate(clientEventId);
    if (refused !== null) return refused;
    if (this.input.framesSinceCommit === 0) return this.refuse('input_audio_buffer_empty', null, clientEventId);
    this.input.framesSinceCommit = 0;
    this.userTurns.manualCommit();
    return [{ kind: 'engine_commit' }, ack({ type: 'input_committed' }, clientEventId)];
  }

  clear(clientEventId?: string): readonly Effect[] {
    const refused = this.gate(clientEventId);
    if (refused !== null) return refused;
    this.input.framesSinceCommit = 0;
    this.userTurns.cleared();
    return [{ kind: 'engine_clear' }, ack({ type: 'input_cleared' }, clientEventId)];
  }

  mute(clientEventId?: string): readonly Effect[] {
    const refused = this.gate(clientEventId);
    if (refused !== null) return refused;
    this.input.mute();
    return [ack({ type: 'muted' }, clientEventId)];
  }

  unmute(clientEventId?: string): readonly Effect[] {
    const refused = this.gate(clientEventId);
    if (refused !== null) return refused;
    this.input.unmute();
    return [ack({ type: 'unmuted' }, clientEventId)];
  }

  /** A dialect-level refusal (bad JSON, unknown event, invalid field): reported unless closed. */
  reject(code: string, message: string, param: string | null, clientEventId?: string): readonly Effect[] {
    return this.phaseNow === 'closed' ? NO_EFFECTS : this.error(code, message, param, clientEventId, 'client');
  }

  tick(nowMs: number): readonly Effect[] {
    if (this.phaseNow !== 'started' || this.descriptor === null || nowMs < this.descriptor.expiresAtMs)
      return NO_EFFECTS;
    return this.close({ kind: 'expired' });
  }

  /**
   * Says why, then ends the session: a client over a limit (`policy`) or a failure of the session's own
   * work (`internal_error`). Nothing once the session is already ending.
   */
  abort(failure: StartFailure, cause: Extract<CloseCause, { kind: 'policy' | 'internal_error' }>): readonly Effect[] {
    if (this.phaseNow === 'closing' || this.phaseNow === 'closed') return NO_EFFECTS;
    const origin = cause.kind === 'internal_error' ? 'server' : 'client';
    const out = this.error(failure.code, failure.message, failure.param ?? null, undefined, origin);
    return out.concat(this.close(cause));
  }

  /** The first cause wins; later ones (a drop after session.close, say) change nothing. */
  close(cause: CloseCause): readonly Effect[] {
    switch (this.phaseNow) {
      case 'awaiting_start': {
        if (cause.kind === 'client') return this.gate(cause.clientEventId) ?? NO_EFFECTS;
        // Nothing was activated or metered: there is no session to report, only a socket to end.
        this.phaseNow = 'closed';
        const { closeCode, detail } = closeOutcome(cause);
        return closeCode === null ? NO_EFFECTS : [{ kind: 'transport_close', code: closeCode, reason: detail }];
      }
      case 'starting':
        this.pendingClose ??= cause;
        return NO_EFFECTS;
      case 'started':
        return this.beginClosing(cause);
      case 'closing':
      case 'closed':
        return NO_EFFECTS;
    }
  }

  engineEvent(event: EngineEvent): readonly Effect[] {
    if (this.phaseNow !== 'started' && this.phaseNow !== 'closing') return NO_EFFECTS;
    switch (event.type) {
      case 'speech_started': {
        this.turns++;
        this.userTurns.started(event.itemId, event.audioStartMs);
        const out: Effect[] = [
          { kind: 'emit', event: { type: 'speech_started', itemId: event.itemId, startMs: event.audioStartMs } },
        ];
        // Barge-in: the user talks over a response that is still being produced or played.
        if (this.phaseNow === 'started' && interruptsResponses(this.descriptor)) this.output.interrupt(out);
        return out;
      }
      case 'speech_suspected':
        return this.phaseNow === 'started' && interruptsResponses(this.descriptor) ? this.output.hold() : NO_EFFECTS;
      case 'speech_ruled_out':
        return this.output.release();
      case 'speech_stopped':
        this.input.framesSinceCommit = 0;
        return [{ kind: 'emit', event: { type: 'speech_stopped', itemId: event.itemId, endMs: event.audioEndMs } }];
      case 'turn_progress':
        return this.phaseNow === 'started' ? this.userTurns.progress(event) : NO_EFFECTS;
      case 'input_transcript':
        return [{ kind: 'emit', event }, ...(event.done ? this.userTurns.finished(event) : NO_EFFECTS)];
      case 'error':
        return this.error('engine_error', `${event.code}: ${event.message}`, null, undefined, 'server');
      case 'response_started':
      case 'output_transcript':
      case 'output_audio':
      case 'response_done':
        return this.phaseNow === 'started' ? this.output.onEngine(event) : NO_EFFECTS;
    }
  }

  /**
   * A conversation's response ended: its text tokens are billed. Until the session is recorded closed
   * (the engine's last responses end while it closes); after that there is no batch to put them in.
   */
  meterText(tokens: TextTokens): readonly Effect[] {
    if (this.phaseNow !== 'started' && this.phaseNow !== 'closing') return NO_EFFECTS;
    if (tokens.input === 0 && tokens.output === 0) return NO_EFFECTS;
    const out: Effect[] = [];
    this.input.meterText(tokens, out);
    return out;
  }

  /** The pacer played the last frame of a response. */
  outputDrained(itemId: string): readonly Effect[] {
    return this.phaseNow === 'started' ? this.output.drained(itemId) : NO_EFFECTS;
  }

  /** The driver closed the engine and recorded the session: say so and end the transport. */
  finalized(nowMs: number, output: OutputStats): readonly Effect[] {
    if (this.phaseNow !== 'closing' || this.ending === null || this.descriptor === null) return NO_EFFECTS;
    this.phaseNow = 'closed';
    const { reason, detail, closeCode, notify, clientEventId } = this.ending;
    const out: Effect[] = [];
    if (notify) {
      const counts = { turns: this.turns, errors: this.errors };
      const stats = sessionStats(nowMs - this.descriptor.startedAtMs, counts, this.input, this.output, output);
      const closed = { type: 'closed' as const, reason, session: this.descriptor, usage: this.usage, detail, stats };
      out.push(ack(closed, clientEventId));
    }
    if (closeCode !== null) out.push({ kind: 'transport_close', code: closeCode, reason: detail });
    return out;
  }

  private beginClosing(cause: CloseCause): readonly Effect[] {
    const outcome = closeOutcome(cause);
    this.ending = cause.kind === 'client' ? { ...outcome, clientEventId: cause.clientEventId } : outcome;
    this.phaseNow = 'closing';
    const out: Effect[] = [{ kind: 'ending' }];
    this.input.finish(out);
    if (outcome.notify) out.push({ kind: 'emit', event: { type: 'usage', usage: this.usage } });
    out.push({ kind: 'output_flush' }, { kind: 'engine_close' });
    out.push({ kind: 'finalize', reason: outcome.reason, detail: outcome.detail, usage: this.usage });
    return out;
  }

  /** Null when the session accepts client events; otherwise the refusal to send. */
  private gate(clientEventId?: string): readonly Effect[] | null {
    switch (this.phaseNow) {
      case 'started':
        return null;
      case 'awaiting_start':
      case 'starting':
        return this.refuse('session_not_started', null, clientEventId);
      case 'closing':
        return this.refuse('session_closed', null, clientEventId);
      case 'closed':
        return NO_EFFECTS;
    }
  }

  private refuse(code: Refusal, param: string | null, clientEventId?: string): Effect[] {
    return this.error(code, REFUSALS[code], param, clientEventId, 'client');
  }

  private error(
    code: string,
    message: string,
    param: string | null,
    clientEventId: string | undefined,
    origin: 'client' | 'server',
  ): Effect[] {
    this.errors++;
    const error =
      clientEventId === undefined ? { code, message, param, origin } : { code, message, param, origin, clientEventId };
    return [{ kind: 'emit', event: { type: 'error', error } }];
  }

  private takePendingClose(): CloseCause {
    const cause = this.pendingClose!;
    this.pendingClose = null;
    return cause;
  }
}
