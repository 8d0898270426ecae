/**
 * One `/v1/realtime` conversation socket, transport-independent. The session starts on connect
 * (`session.created`); client events that arrive before it started, or while a turn detection change
 * reopens the engine stream, are held by the runtime and handled after it, in order. Audio, turn
 * detection and the session's life go to the SessionRuntime as for every session (metered, limited,
 * drained alike); items and responses to the ConversationModel. The runtime's events and the
 * model's both leave through the one renderer, so event ids and order hold across them.
 */
import {
  ConversationModel,
  idleTimedOut,
  SessionRuntime,
  systemClock,
  type ConversationEffect,
  type ConversationLimits,
  type EventRenderer,
  type RenderedFrames,
  type ServerEvent,
  type SessionCommand,
  type SessionConfig,
  type SecretConversation,
  type SessionRuntimeOptions,
  type ResponseEvent,
  type ResponseOptions,
  type SpeechEngine,
} from '../../../../session-core';
import type { ClientFrame } from '../../../connection/client-frames';
import { isClientsOwnClose } from '../../../connection/client-close';
import { REALTIME_MAX_MESSAGE_BYTES } from '../realtime.protocol';
import {
  parseConversationFrame,
  type ConversationParseContext,
  type ConversationRequest,
} from './conversation.protocol';
import { ConversationIdleTimer } from './conversation.idle-timer';
import { Refusal, toolsRefusal } from './conversation.fields';
import { ConversationRenderer } from './conversation.render';
import { secretSettings, servedConfig, startingView } from './conversation.start';
import { unservedBySelfAnswering, type ConversationUpdate, type ConversationView } from './conversation.session-update';

export interface ConversationConnectionOptions extends Omit<SessionRuntimeOptions, 'renderer'> {
  readonly config: SessionConfig;
  readonly engine: SpeechEngine;
  readonly aliases: ReadonlyMap<string, string>;
  readonly maxMessageBytes?: number;
  /** The context budget and what the session keeps (CONVERSATION_CONTEXT_TOKENS, CONVERSATION_RETAINED_CHARS). */
  readonly conversationLimits?: ConversationLimits;
  /** The settings the session's client secret carries (see secretSettings). */
  readonly secretConversation?: SecretConversation | null;
}

/** The requests this connection handles itself rather than the runtime (session_update goes on to it). */
const CONVERSATION_REQUESTS: ReadonlySet<string> = new Set([
  'item_create',
  'item_retrieve',
  'item_delete',
  'item_truncate',
  'response_create',
  'response_cancel',
]);

export class RealtimeConversationConnection implements EventRenderer {
  readonly runtime: SessionRuntime;
  private readonly model: ConversationModel;
  private readonly out = new ConversationRenderer();
  private readonly context: ConversationParseContext;
  private readonly view: ConversationView;
  private readonly tools: boolean;
  private readonly idle: ConversationIdleTimer;
  /** An update that changes turn detection: it applies once the session core took that change. */
  private asked: ConversationUpdate | null = null;

  constructor(options: ConversationConnectionOptions) {
    const { config, engine, aliases, maxMessageBytes, conversationLimits, secretConversation, ...runtimeOptions } =
      options;
    const capabilities = engine.conversation;
    this.tools = capabilities?.tools === true;
    const prefix = options.sessionId.replace(/^sess_/, '');
    this.model = new ConversationModel(prefix, capabilities?.responses === true, conversationLimits);
    this.context = { maxMessageBytes: maxMessageBytes ?? REALTIME_MAX_MESSAGE_BYTES, model: config.model, aliases };
    const served = servedConfig(config, this.model.engineResponds);
    this.view = startingView(served);
    if (served.turnDetection === null || served.createResponse === false) this.model.settings.createResponse = false;
    this.idle = new ConversationIdleTimer(runtimeOptions.clock ?? systemClock, (segment, silenceMs) => {
      try {
        if (this.runtime.phase === 'started') this.send(idleTimedOut(this.model, segment, silenceMs));
      } catch (error) {
        this.runtime.fault(error, 'idle timeout');
      }
    });
    const secret = secretConversation ? secretSettings(secretConversation, config.model, this.tools) : null;
    if (secret !== null) {
      Object.assign(this.model.settings, secret.settings);
      Object.assign(this.view, secret.view);
    }
    this.runtime = new SessionRuntime({ ...runtimeOptions, engine, renderer: this });
    this.runtime.handle({ type: 'start', config: { ...served, conversation: true }, implicit: true });
    if (secret?.refusal) this.runtime.handle(rejection(secret.refusal));
  }

  onMessage(frame: ClientFrame, isBinary: boolean): void {
    const parsed = parseConversationFrame(frame, isBinary, this.context);
    // What the runtime handles it counts itself; items and responses are counted here. A response
    // asked for while the engine stream reopens would find none: everything waits its turn there.
    if (CONVERSATION_REQUESTS.has(parsed.type) && !this.runtime.control()) return;
    this.runtime.inOrder(() => this.handle(parsed));
  }

  /** A client's close handshake ends the session as requested (client-close.ts); a dropped socket is connection_lost. */
  onClose(code: number): void {
    this.idle.stop(); // with the socket gone no `closed` is rendered to stop it
    if (isClientsOwnClose(code)) this.runtime.clientClosed();
    else this.runtime.transportClosed();
  }

  render(event: ServerEvent): RenderedFrames | null {
    switch (event.type) {
      case 'started':
        this.model.settings.interruptResponse = event.session.config.interruptResponse !== false;
        this.idle.configure(event.session.config.idleTimeoutMs ?? null);
        return this.out.session('session.created', event.session, this.model.settings, this.view);
      case 'updated':
        // The session core holds interrupt_response (it cuts the voice): the conversation follows it.
        this.model.settings.interruptResponse = event.session.config.interruptResponse !== false;
        if (this.asked !== null) this.takeAsked(this.asked);
        this.asked = null;
        return this.out.session('session.updated', event.session, this.model.settings, this.view);
      case 'speech_started':
        return this.frames(this.model.speechStarted(event.itemId, event.startMs));
      case 'speech_stopped':
        return this.frames(this.model.speechStopped(event.itemId, event.endMs));
      case 'input_committed':
        return this.frames(this.model.committed(event.clientEventId));
      case 'input_cleared':
        return this.frames(this.model.cleared(event.clientEventId));
      case 'input_transcript': {
        const seconds = Math.max(0, event.endMs - event.startMs) / 1000;
        const transcript = event.transcript ?? event.delta;
        return this.frames(this.model.inputTranscript(event.itemId, event.delta, event.done, transcript, seconds));
      }
      case 'response_started':
        return this.frames(this.model.audioStarted(event.itemId));
      case 'output_audio':
        return this.frames(this.model.audioChunk(event.itemId, event.pcm, event.startMs));
      case 'output_transcript':
        return event.done ? null : this.frames(this.model.audioTranscript(event.itemId, event.delta, event.startMs));
      case 'response_done':
        return this.frames(this.model.audioDone(event.itemId, event.interrupted));
      case 'error':
        this.asked = null; // what it asked does not apply: session.updated shows what is in force
        // As on the transcription half: an event refused because the session is ending is answered
        // by the end's own error, since clients take the first error as fatal.
        if (event.error.code === 'session_closed') return null;
        return this.out.conversation({ type: 'error', error: event.error });
      case 'closed': {
        this.idle.stop();
        const frames = this.frames(this.model.sessionEnding());
        const why = this.out.closing(event);
        return why === null ? frames : [...frames, why];
      }
      case 'turn':
      case 'usage':
      case 'warning':
      case 'muted':
      case 'unmuted':
        return null;
    }
  }

  private handle(parsed: SessionCommand | ConversationRequest): void {
    switch (parsed.type) {
      case 'session_update':
        return this.update(parsed.update, parsed.clientEventId);
      case 'item_create':
        return this.send(this.model.createItem(parsed.item, parsed.previousItemId, parsed.clientEventId));
      case 'item_retrieve':
        return this.send(this.model.retrieveItem(parsed.itemId, parsed.clientEventId));
      case 'item_delete':
        return this.send(this.model.deleteItem(parsed.itemId, parsed.clientEventId));
      case 'item_truncate':
        return this.send(
          this.model.truncateItem(parsed.itemId, parsed.contentIndex, parsed.audioEndMs, parsed.clientEventId),
        );
      case 'response_create':
        if (!this.tools && (parsed.options.tools?.length ?? 0) > 0) {
          return this.refuseTools('response.tools', parsed.clientEventId);
        }
        return this.respond(parsed.options, parsed.clientEventId);
      case 'response_cancel':
        return this.send(this.model.cancelResponse(parsed.responseId, parsed.clientEventId));
      case 'append':
        this.idle.appended(parsed.audio.length);
        return this.runtime.handle(parsed);
      default:
        return this.runtime.handle(parsed);
    }
  }

  /** Settings apply at once; turn detection goes to the session core, which answers session.updated. */
  private update(update: ConversationUpdate, clientEventId?: string): void {
    if (!this.tools && (update.settings.tools?.length ?? 0) > 0)
      return this.refuseTools('session.tools', clientEventId);
    const ids = clientEventId === undefined ? {} : { clientEventId };
    const unserved = this.model.engineResponds ? null : unservedBySelfAnswering(update);
    if (unserved !== null) return this.runtime.handle({ type: 'reject', ...unserved, ...ids });
    if (update.turnDetection === undefined) {
      this.takeAsked(update);
      return this.runtime.handle({ type: 'update', ...ids });
    }
    // The session core may refuse a turn detection change (session_config_locked): the whole update
    // then applies nothing, as OpenAI's does, and a later session.updated shows only what is in force.
    this.asked = update;
    this.runtime.handle({
      type: 'update',
      changes: { turnDetection: update.turnDetection, interruptResponse: update.interruptResponse },
      param: 'session.audio.input.turn_detection',
      ...ids,
    });
  }

  private takeAsked(update: ConversationUpdate): void {
    Object.assign(this.model.settings, update.settings);
    Object.assign(this.view, update.view);
    if (update.idleTimeoutMs !== undefined) this.idle.configure(update.idleTimeoutMs);
  }

  /** A client's response.create, within the session's response rate (runtime guards). */
  private respond(options: ResponseOptions, clientEventId?: string): void {
    const limited = this.runtime.refuseResponse();
    if (limited === null) return this.send(this.model.createResponse(options, clientEventId));
    const ids = clientEventId === undefined ? {} : { clientEventId };
    this.runtime.handle({ type: 'reject', ...limited, param: null, ...ids });
  }

  private refuseTools(param: string, clientEventId?: string): void {
    const { code, message } = toolsRefusal(param, this.context.model);
    this.runtime.handle({
      type: 'reject',
      code,
      message,
      param,
      ...(clientEventId === undefined ? {} : { clientEventId }),
    });
  }

  /** Effects from a client request or an engine callback: each frame goes out after the effects in flight. */
  private send(effects: readonly ConversationEffect[]): void {
    this.perform(effects, (frame) => this.runtime.sendDialectFrame(frame));
  }

  /** Effects met while rendering a session event: their frames are that event's. */
  private frames(effects: readonly ConversationEffect[]): string[] {
    const frames: string[] = [];
    this.perform(effects, (frame) => frames.push(frame));
    return frames;
  }

  /** Renders the emits and carries out the engine requests, in order. */
  private perform(effects: readonly ConversationEffect[], push: (frame: string) => void): void {
    for (const effect of effects) {
      switch (effect.kind) {
        case 'emit':
          this.idle.observe(effect.event);
          push(this.out.conversation(effect.event));
          if (effect.event.type === 'response_created') push(this.out.rateLimits(this.runtime.controlAllowance()));
          break;
        case 'respond': {
          const { responseId } = effect.request;
          const sink = (event: ResponseEvent) => this.send(this.model.responseEvent(responseId, event));
          if (!this.runtime.respond(effect.request, sink)) {
            const failed = {
              type: 'finished' as const,
              status: 'failed' as const,
              reason: 'engine_unavailable',
              usage: null,
            };
            this.perform(this.model.responseEvent(responseId, failed), push);
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
}

const rejection = ({ code, message, param }: Refusal): SessionCommand => ({ type: 'reject', code, message, param });
