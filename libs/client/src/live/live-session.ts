import type {
  LiveClientEvent,
  LiveError,
  LiveServerEvent,
  LiveSessionConfig,
  LiveSessionResource,
} from '../../../protocol/live-events.js';
import { EventQueue } from './event-queue.js';
import {
  base64ToSamples,
  bytesToBase64,
  FRAME_MS,
  FRAME_SAMPLES,
  FrameAssembler,
  Pcm16,
  samplesToBytes,
  toSamples,
} from './pcm.js';
import type { HandshakeError, LiveSessionEnd } from './session-end.js';

/** What the client needs of a socket: the browser's `WebSocket` and the `ws` package both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  binaryType: string;
  send(data: string | ArrayBufferView | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: never) => void): void;
}

/** Output audio that came as a binary frame (`audio.output.encoding: "binary"`): raw pcm16, no timing. */
export interface LiveBinaryAudio {
  type: 'session.output_audio.binary';
  audio: Int16Array;
}

export type LiveSessionEvent = LiveServerEvent | LiveBinaryAudio;
type EventOf<T extends LiveSessionEvent['type']> = Extract<LiveSessionEvent, { type: T }>;

export interface LiveSessionOptions {
  /** Input as JSON appends (`base64`, the convention) or as binary frames (an extension, a third smaller). */
  inputEncoding?: 'base64' | 'binary';
  /** How long to wait for `session.started`. */
  startTimeoutMs?: number;
  /** Node only: the HTTP refusal of the handshake, when there was one. */
  handshakeRefusal?: () => { status: number; error: HandshakeError | null } | null;
}

/** `session.start` refused by an `error` event, or the socket ended before `session.started`. */
export class LiveSessionError extends Error {
  constructor(
    message: string,
    readonly error: LiveError | null,
    readonly end: LiveSessionEnd | null,
  ) {
    super(message);
    this.name = 'LiveSessionError';
  }
}

const OPEN = 1;
const CLOSING = 2;
let nextClientEvent = 0;
const clientEventId = () => `evt_client_${Date.now().toString(36)}_${(nextClientEvent++).toString(36)}`;

/**
 * One live session over one socket: typed server events (callbacks and `for await`), audio in whole
 * 80 ms frames, and the end as a typed value. Create it with `startLiveSession` (or the connect helpers).
 */
export class LiveSession implements AsyncIterable<LiveSessionEvent> {
  resource: LiveSessionResource | null = null;
  /** Resolves once, when the socket has closed. */
  readonly closed: Promise<LiveSessionEnd>;
  private readonly queue = new EventQueue<LiveSessionEvent>();
  private readonly listeners = new Map<string, Set<(event: LiveSessionEvent) => void>>();
  private readonly frames = new FrameAssembler();
  private closedEvent: EventOf<'session.closed'> | null = null;
  private opened = false;
  /** While set, received frames and the close wait here (see `hold`). */
  private held: (() => void)[] | null = null;
  private sentFrames = 0;
  private resolveClosed!: (end: LiveSessionEnd) => void;

  constructor(
    private readonly socket: WebSocketLike,
    private readonly options: LiveSessionOptions = {},
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    socket.binaryType = 'arraybuffer';
    if (socket.readyState === OPEN) this.opened = true;
    socket.addEventListener('open', () => (this.opened = true));
    socket.addEventListener('message', (event: { data: unknown }) => this.whenReleased(() => this.receive(event.data)));
    socket.addEventListener('close', (event: { code: number; reason: string }) =>
      this.whenReleased(() => this.ended(event.code, event.reason)),
    );
    // Failures always end in `close`, which reports them; a listener also keeps `ws` from throwing.
    socket.addEventListener('error', () => undefined);
  }

  /** Milliseconds of input audio sent so far: the position on the server's input timeline. */
  get inputMs(): number {
    return this.sentFrames * FRAME_MS;
  }

  /** Calls `listener` for each server event of `type` (`'*'`: every event). Returns the unsubscribe. */
  on<T extends LiveSessionEvent['type']>(type: T | '*', listener: (event: EventOf<T>) => void): () => void {
    const set = this.listeners.get(type) ?? new Set();
    this.listeners.set(type, set);
    set.add(listener as (event: LiveSessionEvent) => void);
    return () => set.delete(listener as (event: LiveSessionEvent) => void);
  }

  /** Output audio as samples, whichever encoding the session uses. */
  onOutputAudio(listener: (pcm: Int16Array, itemId: string | null) => void): () => void {
    const offBase64 = this.on('session.output_audio.delta', (e) => listener(base64ToSamples(e.delta), e.item_id));
    const offBinary = this.on('session.output_audio.binary', (e) => listener(e.audio, null));
    return () => {
      offBase64();
      offBinary();
    };
  }

  [Symbol.asyncIterator](): AsyncIterator<LiveSessionEvent> {
    return this.queue[Symbol.asyncIterator]();
  }

  /** Sends pcm16 24 kHz mono audio of any length; it leaves in whole 80 ms frames. */
  sendAudio(pcm: Pcm16): void {
    for (const frame of this.frames.push(toSamples(pcm))) this.sendFrame(frame);
  }

  /**
   * Ends the current utterance. The live protocol has no commit event (the server's turn detection
   * ends a turn on silence), so this sends the partial frame padded with silence, then `silenceMs` of
   * silence: what a speaker's pause would send.
   */
  commit(silenceMs = 800): void {
    const partial = this.frames.flush();
    if (partial) this.sendFrame(partial);
    for (let ms = 0; ms < silenceMs; ms += FRAME_MS) this.sendFrame(new Int16Array(FRAME_SAMPLES));
  }

  mute(): void {
    this.send({ type: 'session.input_audio.mute', event_id: clientEventId() });
  }

  unmute(): void {
    this.send({ type: 'session.input_audio.unmute', event_id: clientEventId() });
  }

  send(event: LiveClientEvent): void {
    if (this.socket.readyState === OPEN) this.socket.send(JSON.stringify(event));
  }

  /**
   * Asks the server to end the session and waits for `session.closed` (final usage), then closes the
   * socket. After `timeoutMs` without it, closes anyway.
   */
  async close(timeoutMs = 5000): Promise<LiveSessionEnd> {
    const state = this.socket.readyState;
    if (state === OPEN && !this.closedEvent) {
      this.send({ type: 'session.close', event_id: clientEventId() });
      const timer = setTimeout(() => this.socket.close(1000), timeoutMs);
      void this.closed.then(() => clearTimeout(timer));
    } else if (state < CLOSING) this.socket.close(1000); // still connecting, or already ended by the server
    return this.closed;
  }

  /**
   * Holds delivery until `release`: events that arrive with `session.started` in one network read would
   * otherwise reach no callback, because the caller subscribes only once the start has resolved.
   */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const deliver of held) deliver();
  }

  private whenReleased(deliver: () => void): void {
    if (this.held) this.held.push(deliver);
    else deliver();
  }

  private sendFrame(frame: Int16Array): void {
    if (this.socket.readyState !== OPEN) return;
    this.sentFrames++;
    if (this.options.inputEncoding === 'binary') this.socket.send(samplesToBytes(frame));
    else this.send({ type: 'session.input_audio.append', audio: bytesToBase64(samplesToBytes(frame)) });
  }

  private receive(data: unknown): void {
    let event: LiveSessionEvent;
    if (typeof data === 'string') {
      try {
        event = JSON.parse(data) as LiveServerEvent;
      } catch {
        return; // not ours to interpret; the server sends only JSON text
      }
    } else if (data instanceof ArrayBuffer) {
      event = { type: 'session.output_audio.binary', audio: new Int16Array(data, 0, data.byteLength >> 1) };
    } else return;
    if (event.type === 'session.started' || event.type === 'session.updated') this.resource = event.session;
    if (event.type === 'session.closed') this.closedEvent = event;
    this.queue.push(event);
    for (const key of [event.type, '*']) for (const listener of this.listeners.get(key) ?? []) listener(event);
  }

  private ended(code: number, reason: string): void {
    this.queue.end();
    const closed = this.closedEvent;
    if (closed) {
      const { reason: why, detail, usage, stats } = closed;
      this.resolveClosed({ kind: 'session_closed', reason: why, detail, usage, stats, code });
    } else if (!this.opened) {
      const refusal = this.options.handshakeRefusal?.() ?? null;
      this.resolveClosed({ kind: 'not_opened', code, status: refusal?.status ?? null, error: refusal?.error ?? null });
    } else this.resolveClosed({ kind: 'connection_lost', code, reason });
  }
}

/** Sends `session.start` once the socket is open and resolves on `session.started`. */
export function startLiveSession(
  socket: WebSocketLike,
  config: LiveSessionConfig,
  options: LiveSessionOptions = {},
): Promise<LiveSession> {
  const session = new LiveSession(socket, options);
  const eventId = clientEventId();
  const start = () => session.send({ type: 'session.start', event_id: eventId, session: config });
  if (socket.readyState === OPEN) start();
  else socket.addEventListener('open', start);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new LiveSessionError('no session.started in time', null, null));
      socket.close(1000);
    }, options.startTimeoutMs ?? 15_000);
    const offStarted = session.on('session.started', () => {
      clearTimeout(timer);
      offError();
      session.hold();
      resolve(session);
      // After the caller's continuation (a microtask) has subscribed.
      setTimeout(() => session.release(), 0);
    });
    const offError = session.on('error', (e) => {
      if (e.client_event_id !== eventId && e.error.client_event_id !== eventId) return;
      clearTimeout(timer);
      offStarted();
      reject(new LiveSessionError(e.error.message, e.error, null));
      socket.close(1000);
    });
    void session.closed.then((end) => {
      clearTimeout(timer);
      reject(new LiveSessionError(`the socket closed before session.started (${end.kind})`, null, end));
    });
  });
}
