/**
 * One phone call: a carrier's media stream bridged to a Realtime conversation session in process.
 * Nothing before the carrier's `start` is trusted; its custom parameter `token` (a client secret
 * minted by the app for this call) is admitted as a socket's credential would be, and the call is
 * then that secret's session, with G.711 mu-law in and out (no resampling on the carrier's wire).
 *
 * Playback follows what the caller heard, not what was sent: each answer chunk goes out with a mark
 * naming the item and the audio's end; the carrier echoes a mark when that audio has played. When
 * the caller speaks over an answer, the carrier is told to `clear` at once, the answer's remaining
 * audio is dropped (the session cuts its response itself: interrupt_response) and the item is
 * truncated at the played position the echoed marks gave.
 */
import type { Logger } from '@nestjs/common';
import { WebSocket } from 'ws';
import type { CarrierEvent, CarrierProtocol } from './carrier-protocol';
import type { OpenedCall } from './call-sessions';
import { SessionSocket } from './session-socket';

/** Frames a carrier may send before `start` (Twilio sends one: `connected`). */
const MAX_FRAMES_BEFORE_START = 4;
export const START_TIMEOUT_MS = 10_000;
const MULAW_BYTES_PER_MS = 8;
/** Frames held while the session opens (the carrier streams from `start` on): 2 s of media. */
const MAX_HELD_FRAMES = 100;

/** Opens the session for a started call: admission with the token, then the conversation's connection. */
export type OpenCall = (token: string, socket: SessionSocket) => Promise<OpenedCall>;

/** The answer item whose audio goes to the caller, until it has all been sent and heard. */
interface Playing {
  itemId: string;
  sentMs: number;
  playedMs: number;
  /** More of its audio may come (its response is still being voiced). */
  sending: boolean;
}

export class CallBridge {
  private state: 'awaiting_start' | 'opening' | 'bridged' | 'ended' = 'awaiting_start';
  private framesBeforeStart = 0;
  private streamId = '';
  private session: SessionSocket | null = null;
  private sessionId: string | null = null;
  private keypressed: OpenedCall['keypress'] = () => undefined;
  private playing: Playing | null = null;
  /** Items whose audio was cleared: what the session still sends of them is dropped. */
  private readonly cut = new Set<string>();
  private interruptResponse = true;
  private held: CarrierEvent[] = [];
  private readonly startTimer: NodeJS.Timeout;

  constructor(
    private readonly carrier: WebSocket,
    private readonly protocol: CarrierProtocol,
    private readonly open: OpenCall,
    private readonly logger: Pick<Logger, 'log' | 'warn'>,
  ) {
    this.startTimer = setTimeout(() => this.refuse('start_timeout'), START_TIMEOUT_MS);
    carrier.on('message', (data, isBinary) => this.onCarrierFrame(data as Buffer, isBinary));
    carrier.on('close', () => this.onCarrierClosed());
  }

  private onCarrierFrame(data: Buffer, isBinary: boolean): void {
    if (this.state === 'ended') return;
    if (isBinary) return this.refuse('binary_frame');
    const event = this.protocol.parse(data.toString('utf8'));
    if (event.kind === 'invalid') return this.refuse(event.reason);
    if (this.state === 'awaiting_start') return this.beforeStart(event);
    if (this.state === 'opening') {
      if (this.held.length >= MAX_HELD_FRAMES) return this.refuse('session_not_ready');
      this.held.push(event);
      return;
    }
    this.bridged(event);
  }

  private beforeStart(event: CarrierEvent): void {
    if (event.kind === 'connected' && ++this.framesBeforeStart <= MAX_FRAMES_BEFORE_START) return;
    if (event.kind !== 'start')
      return this.refuse(event.kind === 'connected' ? 'too_many_frames' : 'frame_before_start');
    if (event.token === null || !event.token.startsWith('ek_')) return this.refuse('missing_token');
    if (event.encoding !== 'audio/x-mulaw' || event.sampleRate !== 8000) return this.refuse('unsupported_media_format');
    clearTimeout(this.startTimer);
    this.state = 'opening';
    this.streamId = event.streamId;
    const session = new SessionSocket({
      onServerFrame: (frame) => this.onServerFrame(frame),
      onServerClose: (code, reason) => this.endCall(code === 1006 ? 1011 : code, reason),
      get bufferedAmount() {
        return 0;
      },
    });
    Object.defineProperty(session, 'bufferedAmount', { get: () => this.carrier.bufferedAmount });
    this.open(event.token, session).then(
      ({ sessionId, callId, conversation, keypress }) => {
        if (this.state !== 'opening') return session.clientClose(1006);
        this.state = 'bridged';
        this.keypressed = keypress;
        this.session = session;
        this.sessionId = sessionId;
        this.logger.log(`call ${callId} (${this.protocol.name} ${event.callId || '-'}) is session ${sessionId}`);
        const input = { format: { type: 'audio/pcmu' } };
        const audio = conversation ? { input, output: { format: { type: 'audio/pcmu' } } } : { input };
        session.clientSend(JSON.stringify({ type: 'session.update', session: { audio } }));
        const held = this.held;
        this.held = [];
        for (const frame of held) if (this.state === 'bridged') this.bridged(frame);
      },
      (error: unknown) => {
        const code = (error as { code?: string }).code ?? 'internal_error';
        this.refuse(code === 'internal_error' ? code : `token_refused: ${code}`);
      },
    );
  }

  private bridged(event: CarrierEvent): void {
    const session = this.session!;
    switch (event.kind) {
      case 'media':
        // The Realtime parser's fast path: no JSON.parse for an append without event_id.
        return session.clientSend(`{"type":"input_audio_buffer.append","audio":"${event.payload}"}`);
      case 'mark':
        return this.played(event.name);
      case 'dtmf':
        return this.keypress(event.digit);
      case 'stop':
        session.clientClose(1000);
        return this.endCall(1000, 'stop');
      case 'start':
        return this.refuse('second_start');
      case 'connected':
        return;
    }
  }

  private onServerFrame(frame: string): void {
    let event: { type: string; [key: string]: unknown };
    try {
      event = JSON.parse(frame);
    } catch {
      return;
    }
    switch (event.type) {
      case 'response.output_audio.delta':
        return this.answerChunk(event.item_id as string, event.delta as string);
      case 'input_audio_buffer.speech_started':
        return this.bargeIn();
      case 'response.output_audio.done':
        return this.lastChunkSent(event.item_id as string);
      case 'response.done': // one response at a time: a cut one may end without its audio's done
        return this.playing === null ? undefined : this.lastChunkSent(this.playing.itemId);
      case 'session.created':
      case 'session.updated': {
        const td = (event.session as { audio?: { input?: { turn_detection?: { interrupt_response?: boolean } } } })
          ?.audio?.input?.turn_detection;
        this.interruptResponse = td?.interrupt_response !== false;
        return;
      }
      case 'error': {
        const error = event.error as { code?: string; message?: string } | undefined;
        this.logger.warn(`call session ${this.sessionId}: ${error?.code}: ${error?.message}`);
        return;
      }
    }
  }

  /** An answer chunk to the carrier, with a mark naming the item and the audio's end. */
  private answerChunk(itemId: string, delta: string): void {
    if (this.cut.has(itemId) || this.carrier.readyState !== WebSocket.OPEN) return;
    if (this.playing?.itemId !== itemId) this.playing = { itemId, sentMs: 0, playedMs: 0, sending: true };
    const bytes = (delta.length * 3) / 4 - (delta.endsWith('==') ? 2 : delta.endsWith('=') ? 1 : 0);
    this.playing.sentMs += bytes / MULAW_BYTES_PER_MS;
    this.carrier.send(this.protocol.media(this.streamId, delta));
    this.carrier.send(this.protocol.mark(this.streamId, `${itemId}:${Math.round(this.playing.sentMs)}`));
  }

  /** An echoed mark: the audio before it has played (or a clear dropped it: the item is cut then). */
  private played(name: string): void {
    const at = name.lastIndexOf(':');
    const itemId = name.slice(0, at);
    const ms = Number(name.slice(at + 1));
    if (this.playing === null || this.playing.itemId !== itemId || this.cut.has(itemId)) return;
    this.playing.playedMs = Math.max(this.playing.playedMs, ms);
    this.forgetIfHeard();
  }

  private lastChunkSent(itemId: string): void {
    if (this.playing?.itemId !== itemId) return;
    this.playing.sending = false;
    this.forgetIfHeard();
  }

  /**
   * An answer is forgotten only once all of it was sent and heard: a caller may catch up with the
   * audio between two sentences, and the next sentence's position still counts from the item's start.
   */
  private forgetIfHeard(): void {
    if (this.playing !== null && !this.playing.sending && this.playing.playedMs >= this.playing.sentMs)
      this.playing = null;
  }

  /** The caller spoke over an answer still playing or still coming: stop it where the caller is. */
  private bargeIn(): void {
    const playing = this.playing;
    if (playing === null || !this.interruptResponse) return;
    this.playing = null;
    this.cut.add(playing.itemId);
    this.carrier.send(this.protocol.clear(this.streamId));
    this.session?.clientSend(
      JSON.stringify({
        type: 'conversation.item.truncate',
        item_id: playing.itemId,
        content_index: 0,
        audio_end_ms: Math.round(playing.playedMs),
      }),
    );
  }

  /**
   * A keypress reaches the app as its event (on the sideband), and is the caller's input: an item the
   * model reads and answers, as a typed message would be.
   */
  private keypress(digit: string): void {
    this.keypressed(digit);
    const item = { type: 'message', role: 'user', content: [{ type: 'input_text', text: `[DTMF ${digit}]` }] };
    this.session?.clientSend(JSON.stringify({ type: 'conversation.item.create', item }));
    this.session?.clientSend(JSON.stringify({ type: 'response.create' }));
  }

  private onCarrierClosed(): void {
    clearTimeout(this.startTimer);
    if (this.state === 'ended') return;
    this.state = 'ended';
    // A stream gone without `stop` is a lost connection, as a dropped socket is.
    this.session?.clientClose(1006);
  }

  /** Ends the call before (or instead of) its session, with the reason in the log and the close frame. */
  private refuse(reason: string): void {
    if (this.state === 'ended') return;
    this.logger.warn(
      `call on ${this.protocol.name} refused: ${reason}${this.sessionId ? ` (session ${this.sessionId})` : ''}`,
    );
    this.session?.clientClose(1008);
    this.endCall(1008, reason);
  }

  private endCall(code: number, reason: string): void {
    clearTimeout(this.startTimer);
    this.state = 'ended';
    if (this.carrier.readyState === WebSocket.OPEN) this.carrier.close(code, reason.slice(0, 120));
  }
}
