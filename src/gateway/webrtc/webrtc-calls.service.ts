/**
 * WebRTC calls (`POST /v1/realtime/calls`): admitted as a Realtime conversation socket is (the same
 * credential checks, single-use client secrets, capacity, fair share, concurrency), answered with
 * the peer's SDP, and run as a conversation session whose events travel on the client's `oai-events`
 * data channel and whose audio travels as RTP. The session starts when that channel opens.
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { DataChannel } from 'node-datachannel';
import { AppConfig } from '../../config/app-config';
import { configuredSessionLimits } from '../connection/socket-limits';
import { ENGINE_REGISTRY, VOICECHAT, type EngineRegistry } from '../../engines';
import { decodeSecretConversation, type SecretConversation } from '../../session-core';
import { isClientSecret } from '../../modules/auth';
import { conversationSecret } from '../../modules/client-secrets';
import { newCallId, SessionsService } from '../../modules/sessions';
import { AppError } from '../../platform/errors/app-error';
import { TickScheduler } from '../../platform/clock/tick-scheduler';
import { sha256Hex } from '../../platform/ids';
import { SocketSessions } from '../connection/socket-sessions.service';
import { projectOf } from '../connection/admitted-session';
import { RunningCalls } from '../connection/running-calls';
import { extractSocketCredential } from '../handshake/socket-credentials';
import { SocketAdmission, type Admitted } from '../handshake/socket-admission';
import {
  openRealtimeConversation,
  type RealtimeConversationConnection,
} from '../dialects/realtime/conversation/conversation.connection';
import { REALTIME_MAX_MESSAGE_BYTES } from '../dialects/realtime/realtime.protocol';
import type { RealtimeQuery } from '../dialects/realtime/realtime.query';
import { InboundAudio, OutboundAudio } from './call-audio';
import { CallEvents } from './call-events';
import { callsAdmission } from './calls-admission';
import { PeerCall } from './peer-call';
import { isRtcp, readRtp } from './rtp';
import { checkOffer } from './sdp-offer';

export interface CallRequest {
  readonly sdp: string;
  /** The multipart form's `session` (an API key's call only). */
  readonly session: Record<string, unknown> | null;
}

/** How long an answered call waits for its data channel before it is dropped (and its session recorded lost). */
const CHANNEL_OPEN_TIMEOUT_MS = 20_000;
/** How long a call's audio waits for the client's first event (the SDK's session.update) before the session hears it. */
const FIRST_EVENT_WAIT_MS = 1000;
/** 20 ms of 24 kHz pcm16, the size of the appends a call's audio enters the session in. */
const APPEND_BYTES = 960;

@Injectable()
export class WebRtcCalls implements OnApplicationShutdown {
  private readonly logger = new Logger('WebRtcCalls');
  private readonly peers = new Set<PeerCall>();

  constructor(
    private readonly admission: SocketAdmission,
    private readonly sessions: SocketSessions,
    private readonly sessionRows: SessionsService,
    private readonly config: AppConfig,
    private readonly clock: TickScheduler,
    @Inject(ENGINE_REGISTRY) private readonly engines: EngineRegistry,
    private readonly calls: RunningCalls,
  ) {}

  /** Answers the offer: `{ callId, answer }`, or an AppError (4xx for the client's faults). */
  async create(req: IncomingMessage, call: CallRequest): Promise<{ callId: string; answer: string }> {
    if (this.config.webrtc.udpPort === 0) {
      throw new AppError('not_found', 'WebRTC calls are turned off on this service (WEBRTC_UDP_PORT=0)');
    }
    const offer = checkOffer(call.sdp);
    const dialect = callsAdmission(this.config.realtimeModelAliases);
    const formConversation = await this.formConversation(req, dialect, call);
    await this.admission.admit(req, dialect);
    const admitted = this.admission.take<RealtimeQuery>(req);
    const callId = newCallId();
    let peer: PeerCall;
    let answer: string;
    try {
      peer = new PeerCall({
        callId,
        offer,
        udpPort: this.config.webrtc.udpPort,
        announced: this.config.webrtc.announcedAddresses,
        maxMessageBytes: REALTIME_MAX_MESSAGE_BYTES,
      });
      answer = await peer.answer(this.run(admitted, callId, () => peer, formConversation));
    } catch (error) {
      admitted.claim.release();
      void admitted.ports.settle();
      throw error;
    }
    this.peers.add(peer);
    await this.sessionRows
      .recordTransport(admitted.session.sessionId, 'webrtc', callId)
      .catch((error: unknown) => this.logger.warn({ err: error, callId }, 'could not record the call id'));
    return { callId, answer };
  }

  onApplicationShutdown(): void {
    for (const peer of this.peers) peer.close();
  }

  /** The call's life once answered: the session starts when its channel opens. */
  private run(
    admitted: Admitted<RealtimeQuery>,
    callId: string,
    peer: () => PeerCall,
    formConversation: SecretConversation | null,
  ) {
    let connection: RealtimeConversationConnection | null = null;
    let inbound: InboundAudio | null = null;
    const waiting = setTimeout(() => drop('channel never opened'), CHANNEL_OPEN_TIMEOUT_MS);
    // A call that never connected must not hold a shutting-down process open (its peer is closed then).
    waiting.unref();
    const drop = (why: string): void => {
      if (connection !== null) return;
      clearTimeout(waiting);
      this.logger.log(
        { callId, sessionId: admitted.session.sessionId, why },
        'call dropped before its session started',
      );
      this.peers.delete(peer());
      peer().close();
      admitted.claim.release();
      void admitted.ports.settle();
    };
    const start = (channel: DataChannel): void => {
      clearTimeout(waiting);
      const events = new CallEvents(channel, () => {
        channel.close();
        // After the last events left (SCTP sends what was queued before the close).
        setTimeout(() => {
          this.peers.delete(peer());
          peer().close();
        }, 500);
      });
      const audio = new OutboundAudio(
        peer().codec,
        peer().ssrc,
        (packet) => peer().sendAudio(packet),
        this.clock,
        events,
      );
      events.attach(audio);
      connection = this.connect(admitted, events, formConversation);
      admitted.claim.bind();
      void connection.runtime.done.then(() => admitted.claim.release());
      this.sessions.track('webrtc', connection.runtime, admitted.ports);
      const live = connection;
      const { sessionId } = admitted.session;
      const projectId = projectOf(admitted.session);
      this.calls.add({ callId, sessionId, projectId, join: (t) => live.control(t) }, live.runtime);
      // The microphone's audio flows as soon as the call connects, but the SDK's first session.update
      // (its turn detection among the rest) is sent when the channel opens: the session hears the call
      // once that event is handled (or after FIRST_EVENT_WAIT_MS without one), so the update is not
      // refused as coming after the first audio. What the microphone sent meanwhile is dropped.
      const hear = (): void => {
        clearTimeout(deaf);
        inbound ??= new InboundAudio(peer().codec, appendsTo(live));
      };
      const deaf = setTimeout(hear, FIRST_EVENT_WAIT_MS);
      channel.onMessage((message) => {
        try {
          if (typeof message === 'string' && events.takes(message)) return;
          live.onMessage(
            typeof message === 'string' ? message : Buffer.from(message as ArrayBuffer),
            typeof message !== 'string',
          );
          hear();
        } catch (error) {
          live.runtime.fault(error, 'data channel message');
        }
      });
      channel.onClosed(() => live.runtime.clientClosed());
    };
    return {
      channel: (channel: DataChannel) => {
        if (channel.getLabel() !== 'oai-events' || connection !== null) return channel.close();
        if (channel.isOpen()) start(channel);
        else channel.onOpen(() => start(channel));
      },
      packet: (packet: Buffer) => {
        if (inbound === null || isRtcp(packet)) return;
        const rtp = readRtp(packet);
        if (rtp !== null) inbound.packet(rtp);
      },
      ended: (how: 'closed' | 'lost') => {
        if (connection === null) return drop(`peer ${how}`);
        if (how === 'closed') connection.runtime.clientClosed();
        else connection.runtime.transportClosed();
      },
    };
  }

  private connect(
    admitted: Admitted<RealtimeQuery>,
    transport: CallEvents,
    formConversation: SecretConversation | null,
  ): RealtimeConversationConnection {
    const { session, config, query, ports } = admitted;
    const opened = session.kind === 'opened' ? session.opened : null;
    return openRealtimeConversation({
      sessionId: session.sessionId,
      store: ports.store,
      meter: ports.meter,
      clock: this.clock,
      logger: { warn: (m) => this.logger.warn(m), error: (m) => this.logger.error(m) },
      limits: configuredSessionLimits(this.config),
      config: { ...config!, conversation: true },
      engine: this.engines.engineFor(config!.model),
      transport,
      aliases: query.aliases,
      conversationLimits: this.config.conversationLimits,
      secretConversation:
        opened === null ? formConversation : (decodeSecretConversation(opened.realtimeSession) ?? formConversation),
    });
  }

  /**
   * Refused before a secret is spent: a transcription session's secret (a call is a conversation),
   * and a `session` part beside a secret (the secret's settings are the call's). A `session` part is
   * held to a realtime client secret's rules and starts the call as such a secret's would.
   */
  private async formConversation(
    req: IncomingMessage,
    dialect: ReturnType<typeof callsAdmission>,
    call: CallRequest,
  ): Promise<SecretConversation | null> {
    const found = extractSocketCredential(req, dialect.credentials);
    const secret = found.kind === 'found' && isClientSecret(found.credential.value) ? found.credential.value : null;
    if (secret !== null && call.session !== null) {
      throw new AppError(
        'invalid_parameter',
        "A client secret's call takes its settings from the secret: send no session part",
        { param: 'session' },
      );
    }
    if (secret !== null && (await this.sessionRows.typeBySecretHash(sha256Hex(secret))) === 'transcription') {
      throw new AppError(
        'invalid_parameter',
        'This client secret opens a transcription session; a call is a conversation: use a secret of a realtime session',
        { param: 'authorization' },
      );
    }
    if (call.session === null) return null;
    const engine = this.engines.engineFor(VOICECHAT).conversation;
    return conversationSecret(call.session as Parameters<typeof conversationSecret>[0], VOICECHAT, engine).stored;
  }
}

/** A call's decoded audio enters the conversation as a socket's appends do, so VAD, idle and metering see it alike. */
function appendsTo(connection: RealtimeConversationConnection): (pcm: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (pcm) => {
    pending = pending.length === 0 ? pcm : Buffer.concat([pending, pcm]);
    while (pending.length >= APPEND_BYTES) {
      const audio = pending.subarray(0, APPEND_BYTES).toString('base64');
      pending = pending.subarray(APPEND_BYTES);
      connection.onMessage(`{"type":"input_audio_buffer.append","audio":"${audio}"}`, false);
    }
  };
}
