/**
 * One WebSocket to one worker, for one session stream. Sends are queued until the worker greeted
 * (session.created) and the opening messages went out. Any failure (connect error or timeout, the
 * socket dropping, a malformed message, an `error` event, a stall) is reported once through
 * `failed` and ends the link; the stream decides where to go next.
 */
import WebSocket from 'ws';
import { Resampler } from '../../platform/audio/resampler';
import { SAMPLE_RATE } from '../../session-core';
import { MalformedMessage, WorkerEvent, WorkerProtocol } from './protocols/worker-protocol';
import type { Worker } from './worker-pool';

export interface LinkListener {
  /** A transcript event (delta or done) from the worker. */
  event(event: Extract<WorkerEvent, { kind: 'delta' | 'done' }>): void;
  failed(reason: string): void;
}

export interface LinkOptions {
  protocol: WorkerProtocol;
  apiKey: string | undefined;
  sampleRate: number;
  connectTimeoutMs: number;
}

export class WorkerLink {
  private readonly socket: WebSocket;
  private readonly resampler: Resampler | null;
  private queue: string[] | null = [];
  private ended = false;
  private readonly connectTimer: NodeJS.Timeout;
  private greet!: { resolve: () => void; reject: (error: Error) => void };
  /** Resolves when the worker greeted; rejects if the link fails before (then `failed` is not called). */
  readonly greeted: Promise<void>;
  /** When the worker last sent anything, or a final transcript was last asked for (stall detection). */
  lastEventAt: number;

  constructor(
    readonly worker: Worker,
    private readonly options: LinkOptions,
    private readonly listener: LinkListener,
    private readonly now: () => number = Date.now,
  ) {
    this.lastEventAt = now();
    this.greeted = new Promise((resolve, reject) => (this.greet = { resolve, reject }));
    this.greeted.catch(() => undefined);
    this.resampler = options.sampleRate === SAMPLE_RATE ? null : new Resampler(SAMPLE_RATE, options.sampleRate);
    const headers = options.protocol.headers(options.apiKey);
    if (worker.hostname) headers.host = worker.hostname;
    const tls = worker.hostname ? { servername: worker.hostname } : {};
    this.socket = new WebSocket(options.protocol.url(worker.url), {
      headers,
      handshakeTimeout: options.connectTimeoutMs,
      perMessageDeflate: false,
      ...tls,
    });
    this.connectTimer = setTimeout(() => this.fail('no greeting from the worker in time'), options.connectTimeoutMs);
    this.socket.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    this.socket.on('error', (error) => this.fail(`socket error: ${error.message}`));
    this.socket.on('close', (code) => this.fail(`socket closed (${code})`));
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /** Whether the greeting arrived (sends go straight out). */
  get ready(): boolean {
    return this.queue === null;
  }

  begin(): void {
    for (const message of this.options.protocol.begin()) this.send(message);
  }

  /** Session audio (pcm16 24 kHz), resampled to the worker's rate. */
  append(pcm: Buffer): void {
    if (this.ended) return;
    const audio = this.resampler ? this.resampler.processPcm16(pcm) : pcm;
    if (audio.length > 0) this.send(this.options.protocol.append(audio.toString('base64')));
  }

  end(): void {
    this.lastEventAt = Math.max(this.lastEventAt, this.now());
    for (const message of this.options.protocol.end()) this.send(message);
  }

  /** Closes the socket without reporting a failure. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.connectTimer);
    this.socket.removeAllListeners('close');
    this.socket.on('error', () => undefined);
    if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    else this.socket.close(1000);
  }

  /** Ends the link as failed (also used by the stream for a stall). */
  fail(reason: string): void {
    if (this.ended) return;
    const wasReady = this.ready;
    this.close();
    this.socket.terminate();
    if (wasReady) this.listener.failed(reason);
    else this.greet.reject(new Error(reason));
  }

  private send(message: string): void {
    if (this.ended) return;
    if (this.queue !== null) this.queue.push(message);
    else this.socket.send(message);
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.ended) return;
    this.lastEventAt = this.now();
    if (isBinary) return this.fail('malformed message from the worker: binary frame');
    let event: WorkerEvent;
    try {
      event = this.options.protocol.decode(data.toString('utf8'));
    } catch (error) {
      const why = error instanceof MalformedMessage ? error.message : String(error);
      return this.fail(`malformed message from the worker: ${why}`);
    }
    switch (event.kind) {
      case 'created':
        return this.onGreeting();
      case 'error':
        return this.fail(`worker error: ${event.message}`);
      case 'delta':
      case 'done':
        return this.listener.event(event);
      case 'other':
        return;
    }
  }

  private onGreeting(): void {
    if (this.queue === null) return;
    clearTimeout(this.connectTimer);
    const queued = this.queue;
    this.queue = null;
    for (const message of [...this.options.protocol.opening(), ...queued]) this.socket.send(message);
    this.greet.resolve();
  }
}
