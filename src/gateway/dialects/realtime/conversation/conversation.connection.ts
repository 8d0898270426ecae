/**
 * One `/v1/realtime` conversation connection, transport-independent: the parser of its client's events
 * and the renderer of its session's, attached to a ConversationSession of the session core, which
 * holds the conversation. `openRealtimeConversation` starts the session with its media connection
 * (the session starts on connect: `session.created`); another connection (a server's control socket
 * beside a call) attaches to the same session with `new RealtimeConversationConnection(session, …,
 * 'control')`. Each numbers its own `event_id`s.
 */
import {
  ConversationSession,
  type ConnectionRole,
  type ConversationConnection,
  type ConversationOutput,
  type ConversationLimits,
  type ConversationRefusals,
  type SecretConversation,
  type SessionConfig,
  type SessionRuntime,
  type SessionRuntimeOptions,
  type SpeechEngine,
  type TransportPort,
} from '../../../../session-core';
import type { ClientFrame } from '../../../connection/client-frames';
import { isClientsOwnClose } from '../../../connection/client-close';
import { REALTIME_MAX_MESSAGE_BYTES } from '../realtime.protocol';
import { parseConversationFrame, type ConversationParseContext } from './conversation.protocol';
import { Refusal, toolsRefusal } from './conversation.fields';
import { ConversationRenderer } from './conversation.render';
import { secretSettings, servedConfig, startingView } from './conversation.start';
import { unservedBySelfAnswering, type ConversationView } from './conversation.session-update';

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

export type RealtimeConversation = ConversationSession<ConversationView>;

/** Starts a conversation session on the connection that carries its media. */
export function openRealtimeConversation(options: ConversationConnectionOptions): RealtimeConversationConnection {
  const { config, engine, aliases, maxMessageBytes, secretConversation, transport, ...runtimeOptions } = options;
  const served = servedConfig(config, engine.conversation?.responses === true);
  const callsTools = engine.conversation?.tools === true;
  const session = new ConversationSession<ConversationView>({
    ...runtimeOptions,
    engine,
    config: served,
    view: startingView(served),
    secret: secretConversation ? secretSettings(secretConversation, config.model, callsTools) : null,
    refusals: realtimeRefusals(config.model),
  });
  const context = { maxMessageBytes: maxMessageBytes ?? REALTIME_MAX_MESSAGE_BYTES, model: config.model, aliases };
  return new RealtimeConversationConnection(session, transport, context, 'media');
}

export class RealtimeConversationConnection implements ConversationConnection<ConversationView> {
  private readonly out = new ConversationRenderer(() => this.session.outputFormat);

  constructor(
    readonly session: RealtimeConversation,
    private readonly transport: TransportPort,
    readonly context: ConversationParseContext,
    role: ConnectionRole,
  ) {
    session.attach(this, role);
  }

  get runtime(): SessionRuntime {
    return this.session.runtime;
  }

  get bufferedAmount(): number {
    return this.transport.bufferedAmount;
  }

  onMessage(frame: ClientFrame, isBinary: boolean): void {
    this.session.receive(parseConversationFrame(frame, isBinary, this.context), this);
  }

  /** A client's close handshake ends the session as requested (client-close.ts); a dropped socket is connection_lost. */
  onClose(code: number): void {
    this.session.leave(this, isClientsOwnClose(code));
  }

  send(output: ConversationOutput<ConversationView>): void {
    switch (output.type) {
      case 'session_created':
      case 'session_updated': {
        const type = output.type === 'session_created' ? 'session.created' : 'session.updated';
        return this.transport.send(this.out.session(type, output.session, output.settings, output.view));
      }
      case 'rate_limits':
        return this.transport.send(this.out.rateLimits(output.allowance));
      case 'dtmf':
        return this.transport.send(this.out.dtmf(output.digit, output.receivedAt));
      case 'closed': {
        const why = this.out.closing(output);
        return why === null ? undefined : this.transport.send(why);
      }
      default:
        return this.transport.send(this.out.conversation(output));
    }
  }

  close(code: number, reason: string): void {
    this.transport.close(code, reason);
  }

  /** A server's control connection (the sideband) to the same session, over `transport`. */
  control(transport: TransportPort): RealtimeConversationConnection {
    return new RealtimeConversationConnection(this.session, transport, this.context, 'control');
  }
}

/** What this dialect's clients read when the session refuses what its engine cannot serve. */
function realtimeRefusals(model: string): ConversationRefusals<ConversationView> {
  return {
    tools: (where) => toolsRefusal(where === 'session' ? 'session.tools' : 'response.tools', model),
    unservedBySelfAnswering,
    outputFormat: (asked, inForce) =>
      new Refusal(
        'unsupported_audio_format',
        `response.audio.output.format: a response plays in the session's output format (${asked} asked, ${inForce} in force); change it with session.update`,
        'response.audio.output.format',
      ),
    audioOnControl: () =>
      new Refusal(
        'invalid_request',
        'input_audio_buffer.append is not accepted here: the session hears the audio of its call only',
        null,
      ),
    formatOnControl: () =>
      new Refusal(
        'invalid_request',
        "session.audio formats are the call's own (its media connection's): a sideband cannot change them",
        'session.audio',
      ),
  };
}
