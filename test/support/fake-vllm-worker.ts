/**
 * A vLLM Realtime worker written from the published protocol (see ../shared/reference/remote-engines.md),
 * as a small real server: HTTP GET /health and a /v1/realtime WebSocket. It "transcribes" by audio
 * length: one word (`w1 w2 …`) per `wordEveryMs` of audio of the current generation, sent as a
 * `transcription.delta` when reached; `commit {final: true}` answers `transcription.done`.
 * Fault modes make it die, stall, send garbage or an `error` after some audio.
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

export type FaultMode = 'none' | 'die' | 'stall' | 'garbage' | 'error';

export interface FakeWorkerOptions {
  /** Sample rate the fake expects (only used to turn bytes into ms). */
  sampleRate?: number;
  wordEveryMs?: number;
  /** What to do once `faultAfterMs` of audio arrived on one socket. */
  fault?: FaultMode;
  faultAfterMs?: number;
  /** Answer 503 on /health. */
  unhealthy?: boolean;
  /** Accept sockets but never say anything (a hung worker). */
  silent?: boolean;
}

export interface ReceivedSession {
  model: string | null;
  /** Audio bytes per generation, in order. */
  generations: number[];
  messages: string[];
}

export class FakeVllmWorker {
  readonly sessions: ReceivedSession[] = [];
  readonly authorizations: (string | undefined)[] = [];
  healthChecks = 0;
  private readonly sockets = new Set<WebSocket>();

  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
    public options: FakeWorkerOptions,
  ) {}

  static async start(options: FakeWorkerOptions = {}): Promise<FakeVllmWorker> {
    const server = createServer();
    const wss = new WebSocketServer({ noServer: true });
    const worker = new FakeVllmWorker(server, wss, options);
    server.on('request', (req, res) => {
      if (req.url === '/health') {
        worker.healthChecks++;
        res.writeHead(worker.options.unhealthy ? 503 : 200).end();
      } else res.writeHead(404).end();
    });
    server.on('upgrade', (req, socket, head) => {
      if (!req.url?.startsWith('/v1/realtime')) return socket.destroy();
      worker.authorizations.push(req.headers.authorization);
      wss.handleUpgrade(req, socket, head, (ws) => worker.serve(ws));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return worker;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/realtime`;
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  /** Drops every socket without a close handshake (a crashed worker). */
  killSockets(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  async stop(): Promise<void> {
    this.killSockets();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.on('close', () => this.sockets.delete(ws));
    const session: ReceivedSession = { model: null, generations: [], messages: [] };
    this.sessions.push(session);
    const rate = this.options.sampleRate ?? 16_000;
    const wordMs = this.options.wordEveryMs ?? 400;
    let bytes = 0;
    let total = 0;
    let words = 0;
    let generating = false;
    let faulted = false;
    if (this.options.silent) return;
    ws.send(JSON.stringify({ type: 'session.created', id: 'sess_fake', created: 0 }));
    ws.on('message', (data: Buffer) => {
      if (faulted) return;
      const text = data.toString();
      const event = JSON.parse(text) as { type: string; model?: string; audio?: string; final?: boolean };
      session.messages.push(event.type === 'input_audio_buffer.append' ? 'append' : text);
      if (event.type === 'session.update') session.model = event.model ?? null;
      else if (event.type === 'input_audio_buffer.commit' && !event.final) {
        generating = true;
        bytes = 0;
        words = 0;
      } else if (event.type === 'input_audio_buffer.append' && generating) {
        const n = Buffer.from(event.audio ?? '', 'base64').length;
        bytes += n;
        total += n;
        const ms = (total / 2 / rate) * 1000;
        if (this.options.fault && this.options.fault !== 'none' && ms >= (this.options.faultAfterMs ?? 0)) {
          faulted = true;
          return this.misbehave(ws, this.options.fault);
        }
        while ((words + 1) * wordMs <= (bytes / 2 / rate) * 1000) {
          words++;
          ws.send(JSON.stringify({ type: 'transcription.delta', delta: words === 1 ? `w${words}` : ` w${words}` }));
        }
      } else if (event.type === 'input_audio_buffer.commit' && event.final) {
        generating = false;
        session.generations.push(bytes);
        const all = Array.from({ length: words }, (_, i) => `w${i + 1}`).join(' ');
        ws.send(JSON.stringify({ type: 'transcription.done', text: all, usage: { input_tokens: 1 } }));
      }
    });
  }

  private misbehave(ws: WebSocket, fault: FaultMode): void {
    switch (fault) {
      case 'die':
        return ws.terminate();
      case 'garbage':
        return ws.send('this is { not json');
      case 'error':
        return ws.send(JSON.stringify({ type: 'error', error: 'boom', code: 'processing_error' }));
      case 'stall':
      case 'none':
        return;
    }
  }
}
