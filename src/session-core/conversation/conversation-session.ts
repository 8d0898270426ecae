/**
 * One conversation session, whatever carries it: the SessionRuntime (audio, turn detection, the
 * session's life: metered, limited, drained as every session) joined to the ConversationModel (items,
 * responses) and the idle timeout, with the tool and response policy between them. Connections
 * (conversation-connection.ts) attach to it: one carries the media, others may watch and steer it.
 *
 * Runtime events go through the model and out to every connection in the order the runtime made
 * them; what a client request or an engine callback produces goes out after the effects in flight
 * (`afterEffects`), so order holds across both. The runtime sees one transport: the media
 * connection's backlog (pacing, dropping output audio) and a close that reaches every connection.
 * The connections, and the delivery to them, are conversation-fanout.ts's.
 */
import { WireAudio, type AudioFormatName } from '../../platform/audio/audio-format';
import type { ResponseEvent, SpeechEngine } from '../engine/engine.port';
import type { SessionCommand } from '../model/session.commands';
import type { ServerEvent } from '../model/session.events';
import type { SessionConfig, SessionDescriptor, SessionError } from '../model/session.types';
import { systemClock, type EventRenderer, type TransportPort } from '../runtime/ports';
import { DEFAULT_RUNTIME_TUNING, type SessionRuntimeOptions } from '../runtime/runtime-options';
import { SessionRuntime } from '../runtime/session.runtime';
import { ConversationFanout } from './conversation-fanout';
import { ConversationIdleTimer } from './conversation-idle-timer';
import type { ConversationEffect } from './conversation-effects';
import { ConversationModel } from './conversation.model';
import type { ConversationSettings, ResponseOptions } from './conversation.types';
import type { ConversationLimits } from './context-budget';
import { idleTimedOut } from './idle-timeout';
import type {
  ConnectionRole,
  ConversationClientEvent,
  ConversationConnection,
  ConversationOutput,
  ConversationRefusal,
  ConversationRefusals,
  ConversationSettingsChange,
} from './conversation-connection';

export interface ConversationSessionOptions<V extends object> extends Omit<
  SessionRuntimeOptions,
  'renderer' | 'transport' | 'onEnding'
> {
  /** The configuration as the engine can serve it (the dialect leaves out what its engine cannot do). */
  readonly config: SessionConfig;
  readonly engine: SpeechEngine;
  /** What session.created shows beyond the settings, for that configuration. */
  readonly view: V;
  /** A client secret's settings, taken before the start; their refusal is an `error` after session.created. */
  readonly secret?: {
    readonly settings: Partial<ConversationSettings>;
    readonly view: Partial<V>;
    readonly refusal: ConversationRefusal | null;
  } | null;
  readonly refusals: ConversationRefusals<V>;
  /** The context budget and what the session keeps (CONVERSATION_CONTEXT_TOKENS, CONVERSATION_RETAINED_CHARS). */
  readonly conversationLimits?: ConversationLimits;
}

/** The requests the session handles itself rather than the runtime (session_update goes on to it). */
const CONVERSATION_REQUESTS: ReadonlySet<string> = new Set([
  'item_create',
  'item_retrieve',
  'item_delete',
  'item_truncate',
  'response_create',
  'response_cancel',
]);

const FAILED = { type: 'finished', status: 'failed', reason: 'engine_unavailable', usage: null } as const;

export class ConversationSession<V extends object> implements EventRenderer {
  readonly runtime: SessionRuntime;
  private readonly model: ConversationModel;
  private readonly view: V;
  private readonly tools: boolean;
  private readonly refusals: ConversationRefusals<V>;
  private readonly idle: ConversationIdleTimer;
  /** The media connection's audio formats ↔ the session's pcm16 24 kHz (G.711 for phone bridges). */
  private readonly wire: WireAudio;
  private readonly fanout: ConversationFanout<V>;
  /** The connection whose client event is being handled: an error it causes is told to it alone. */
  private source: ConversationConnection<V> | null = null;
  /** A change of turn detection: it applies once the session core took it. */
  private asked: ConversationSettingsChange<V> | null = null;

  /** The format the media connection's output audio is in. */
  get outputFormat(): AudioFormatName {
    return this.wire.current.output;
  }

  constructor(options: ConversationSessionOptions<V>) {
    const { config, view, secret, refusals, conversationLimits, ...runtimeOptions } = options;
    const capabilities = options.engine.conversation;
    this.tools = capabilities?.tools === true;
    this.refusals = refusals;
    this.view = view;
    this.wire = new WireAudio(config.audioFormats);
    this.fanout = new ConversationFanout<V>(
      options.tuning?.hardBacklogBytes ?? DEFAULT_RUNTIME_TUNING.hardBacklogBytes,
      {
        mediaLost: () => this.runtime.transportClosed(),
        mediaNotReading: () => void this.runtime.end({ kind: 'client_not_reading' }),
        warn: (message) => options.logger?.warn(`session ${options.sessionId}: ${message}`),
      },
    );
    const prefix = options.sessionId.replace(/^sess_/, '');
    this.model = new ConversationModel(prefix, capabilities?.responses === true, conversationLimits);
    if (config.turnDetection === null || config.createResponse === false) this.model.settings.createResponse = false;
    this.idle = new ConversationIdleTimer(runtimeOptions.clock ?? systemClock, (segment, silenceMs) => {
      try {
        if (this.runtime.phase === 'started') this.send(idleTimedOut(this.model, segment, silenceMs));
      } catch (error) {
        this.runtime.fault(error, 'idle timeout');
      }
    });
    if (secret) {
      Object.assign(this.model.settings, secret.settings);
      Object.assign(this.view, secret.view);
    }
    this.runtime = new SessionRuntime({
      ...runtimeOptions,
      transport: this.runtimeTransport(),
      renderer: this,
      // The response in flight is cut and billed before the session's usage is recorded.
      onEnding: () => this.perform(this.model.sessionEnding()),
    });
    this.runtime.handle({ type: 'start', config: { ...config, conversation: true }, implicit: true });
    if (secret?.refusal) this.runtime.handle({ type: 'reject', ...secret.refusal });
    // Connections still attached when the session has ended are closed with it.
    void this.runtime.done.then(() => this.fanout.closeAll(1000, 'session ended'));
  }

  /**
   * A connection joins: the media one (exactly one, attached before the session has anything to
   * say: at once after construction), or a control connection at any time. It sees what the session
   * says from then on.
   */
  attach(connection: ConversationConnection<V>, role: ConnectionRole): void {
    this.fanout.attach(connection, role);
  }

  /** A connection left. The media connection's leaving ends the session (`clean`: its client asked to). */
  leave(connection: ConversationConnection<V>, clean: boolean): void {
    if (!this.fanout.leave(connection)) return;
    this.idle.stop(); // with the media gone no `closed` is rendered to stop it
    if (clean) this.runtime.clientClosed();
    else this.runtime.transportClosed();
  }

  /** A client event a connection parsed. Items and responses are counted here, the rest by the runtime. */
  receive(request: ConversationClientEvent<V>, from: ConversationConnection<V>): void {
    // A response asked for while the engine stream reopens would find none: everything waits its turn there.
    if (CONVERSATION_REQUESTS.has(request.type) && !this.runtime.control()) return;
    this.runtime.inOrder(() => this.handleFrom(from, request));
  }

  /**
   * A connection's client event, handled now (the runtime runs its effects before returning): the
   * errors it causes are that connection's, while the session's own go to every connection.
   */
  private handleFrom(from: ConversationConnection<V>, request: ConversationClientEvent<V>): void {
    const outer = this.source;
    this.source = from;
    try {
      if (request.type === 'append' && !this.fanout.isMedia(from)) {
        return this.refuse(this.refusals.audioOnControl(), request.clientEventId);
      }
      if (
        request.type === 'session_update' &&
        request.update.audioFormats !== undefined &&
        !this.fanout.isMedia(from)
      ) {
        return this.refuse(this.refusals.formatOnControl(), request.clientEventId);
      }
      this.handle(request);
    } finally {
      this.source = outer;
    }
  }

  /** A caller's keypress (a phone call's DTMF), told to every connection in order with the session's events. */
  keypress(digit: string, receivedAt: number): void {
    if (this.runtime.phase !== 'started') return;
    this.runtime.afterEffects(() => this.fanout.deliver({ type: 'dtmf', digit, receivedAt }));
  }

  /** The runtime's events, through the model, to every connection (the runtime sends nothing itself). */
  render(event: ServerEvent): null {
    switch (event.type) {
      case 'started':
        this.model.settings.interruptResponse = event.session.config.interruptResponse !== false;
        this.idle.configure(event.session.config.idleTimeoutMs ?? null);
        this.fanout.deliver(this.sessionShown('session_created', event));
        break;
      case 'updated':
        // The session core holds interrupt_response (it cuts the voice): the conversation follows it.
        this.model.settings.interruptResponse = event.session.config.interruptResponse !== false;
        if (this.asked !== null) this.takeAsked(this.asked);
        this.asked = null;
        this.fanout.deliver(this.sessionShown('session_updated', event));
        break;
      case 'speech_started':
        return this.perform(this.model.speechStarted(event.itemId, event.startMs));
      case 'speech_stopped':
        return this.perform(this.model.speechStopped(event.itemId, event.endMs));
      case 'input_committed':
        return this.perform(this.model.committed(event.clientEventId));
      case 'input_cleared':
        return this.perform(this.model.cleared(event.clientEventId));
      case 'input_transcript': {
        const seconds = Math.max(0, event.endMs - event.startMs) / 1000;
        const transcript = event.transcript ?? event.delta;
        return this.perform(this.model.inputTranscript(event.itemId, event.delta, event.done, transcript, seconds));
      }
      case 'response_started':
        return this.perform(this.model.audioStarted(event.itemId));
      case 'output_audio':
        return this.perform(this.model.audioChunk(event.itemId, this.wire.output(event.pcm), event.startMs));
      case 'output_transcript':
        if (!event.done) this.perform(this.model.audioTranscript(event.itemId, event.delta, event.startMs));
        break;
      case 'response_done':
        return this.perform(this.model.audioDone(event.itemId, event.interrupted));
      case 'error':
        this.asked = null; // what it asked does not apply: session.updated shows what is in force
        // As on the transcription half: an event refused because the session is ending is answered
        // by the end's own error, since clients take the first error as fatal.
        if (event.error.code !== 'session_closed')
          this.fanout.deliver({ type: 'error', error: event.error }, this.blamed(event));
        break;
      case 'closed':
        this.idle.stop();
        this.fanout.deliver(event);
        break;
    }
    return null;
  }

  private sessionShown(type: 'session_created' | 'session_updated', event: { readonly session: SessionDescriptor }) {
    return { type, session: event.session, settings: this.model.settings, view: this.view };
  }

  private handle(request: SessionCommand | ConversationClientEvent<V>): void {
    switch (request.type) {
      case 'session_update':
        return this.update(request.update, request.clientEventId);
      case 'item_create':
        return this.send(this.model.createItem(request.item, request.previousItemId, request.clientEventId));
      case 'item_retrieve':
        return this.send(this.model.retrieveItem(request.itemId, request.clientEventId));
      case 'item_delete':
        return this.send(this.model.deleteItem(request.itemId, request.clientEventId));
      case 'item_truncate': {
        const { itemId, contentIndex, audioEndMs, clientEventId } = request;
        return this.send(this.model.truncateItem(itemId, contentIndex, audioEndMs, clientEventId));
      }
      case 'response_create':
        if (request.outputFormat !== undefined && request.outputFormat !== this.wire.current.output) {
          return this.refuse(
            this.refusals.outputFormat(request.outputFormat, this.wire.current.output),
            request.clientEventId,
          );
        }
        if (!this.tools && (request.options.tools?.length ?? 0) > 0) {
          return this.refuse(this.refusals.tools('response'), request.clientEventId);
        }
        return this.respond(request.options, request.clientEventId);
      case 'response_cancel':
        return this.send(this.model.cancelResponse(request.responseId, request.clientEventId));
      case 'append': {
        const audio = this.wire.input(request.audio);
        this.idle.appended(audio.length);
        return this.runtime.handle({ ...request, audio });
      }
      default:
        return this.runtime.handle(request);
    }
  }

  /** Settings apply at once; turn detection goes to the session core, which answers session.updated. */
  private update(change: ConversationSettingsChange<V>, clientEventId?: string): void {
    if (!this.tools && (change.settings.tools?.length ?? 0) > 0) {
      return this.refuse(this.refusals.tools('session'), clientEventId);
    }
    const unserved = this.model.engineResponds ? null : this.refusals.unservedBySelfAnswering(change);
    if (unserved !== null) return this.refuse(unserved, clientEventId);
    const ids = clientEventId === undefined ? {} : { clientEventId };
    // The audio that follows is in the new formats, whenever the session core answers the update.
    if (change.audioFormats !== undefined) this.wire.set(change.audioFormats);
    const formats = change.audioFormats === undefined ? {} : { audioFormats: this.wire.current };
    if (change.turnDetection === undefined) {
      this.takeAsked(change);
      return this.runtime.handle({ type: 'update', changes: formats, ...ids });
    }
    // The session core may refuse a turn detection change (session_config_locked): the whole change
    // then applies nothing, as OpenAI's does, and a later session.updated shows only what is in force.
    this.asked = change;
    this.runtime.handle({
      type: 'update',
      changes: { turnDetection: change.turnDetection, interruptResponse: change.interruptResponse, ...formats },
      param: 'session.audio.input.turn_detection',
      ...ids,
    });
  }

  /** A client's response.create, within the session's response rate (runtime guards). */
  private respond(options: ResponseOptions, clientEventId?: string): void {
    const limited = this.runtime.refuseResponse();
    if (limited === null) return this.send(this.model.createResponse(options, clientEventId));
    this.refuse({ ...limited, param: null }, clientEventId);
  }

  private takeAsked(change: ConversationSettingsChange<V>): void {
    Object.assign(this.model.settings, change.settings);
    Object.assign(this.view, change.view);
    if (change.idleTimeoutMs !== undefined) this.idle.configure(change.idleTimeoutMs);
  }

  private refuse(refusal: ConversationRefusal, clientEventId?: string): void {
    const ids = clientEventId === undefined ? {} : { clientEventId };
    this.runtime.handle({ type: 'reject', code: refusal.code, message: refusal.message, param: refusal.param, ...ids });
  }

  /** Effects from a client request or an engine callback: their events go out after the effects in flight. */
  private send(effects: readonly ConversationEffect[]): void {
    const outputs: [ConversationOutput<V>, ConversationConnection<V> | null][] = [];
    this.carryOut(effects, (output, only) => outputs.push([output, only]));
    if (outputs.length > 0)
      this.runtime.afterEffects(() => outputs.forEach(([output, only]) => this.fanout.deliver(output, only)));
  }

  /** Effects met while rendering a session event: their events are that event's, delivered now. */
  private perform(effects: readonly ConversationEffect[]): null {
    if (effects.length > 0) this.carryOut(effects, this.deliverNow);
    return null;
  }

  private readonly deliverNow = (output: ConversationOutput<V>, only: ConversationConnection<V> | null): void =>
    this.fanout.deliver(output, only);

  /**
   * Who alone hears an error: the connection whose client event it refuses, while the session runs.
   * Null (every connection) for the session's own: an engine's failure, a broken limit that ends it.
   */
  private blamed(event: { readonly error: SessionError }): ConversationConnection<V> | null {
    return event.error.origin === 'client' && this.runtime.phase === 'started' ? this.source : null;
  }

  /** Carries out the engine requests and hands on the events, in order. */
  private carryOut(
    effects: readonly ConversationEffect[],
    push: (output: ConversationOutput<V>, only: ConversationConnection<V> | null) => void,
  ): void {
    for (const effect of effects) {
      switch (effect.kind) {
        case 'emit':
          this.idle.observe(effect.event);
          push(effect.event, effect.event.type === 'error' ? this.blamed(effect.event) : null);
          if (effect.event.type === 'response_created') {
            push({ type: 'rate_limits', allowance: this.runtime.controlAllowance() }, null);
          }
          break;
        case 'respond': {
          const { responseId } = effect.request;
          const sink = (event: ResponseEvent) => this.send(this.model.responseEvent(responseId, event));
          if (!this.runtime.respond(effect.request, sink)) {
            this.carryOut(this.model.responseEvent(responseId, FAILED), push);
          }
          break;
        }
        case 'cancel':
          this.runtime.cancelResponse(effect.responseId);
          break;
        case 'bill':
          this.runtime.meterText({ input: effect.tokens.inputTokens, output: effect.tokens.outputTokens });
          break;
      }
    }
  }

  /** The one transport the runtime sees: the media connection's backlog; its close ends every connection. */
  private runtimeTransport(): TransportPort {
    const fanout = this.fanout;
    return {
      send: () => undefined, // the runtime sends nothing: render() delivers
      close: (code, reason) => fanout.closeAll(code, reason),
      get bufferedAmount() {
        return fanout.backlog;
      },
    };
  }
}
