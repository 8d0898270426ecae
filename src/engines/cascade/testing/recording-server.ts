/**
 * A small real HTTP server on 127.0.0.1:0 for protocol fakes: it records every request (JSON body,
 * headers) and how it ended — answered in full, or closed by the client before the answer was
 * (which is how a client cancels a streamed generation).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The client closed the connection before the answer was complete. */
  aborted: boolean;
  /** The whole answer was written. */
  completed: boolean;
  /** performance.now() when the request's body had arrived. */
  receivedAt: number;
  /** performance.now() when the client closed the request early. */
  abortedAt: number | null;
  /** performance.now() of the answer's first and latest body writes (the fake's own time ends there). */
  firstWriteAt: number | null;
  lastWriteAt: number | null;
}

export type Handler = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(handler: Handler): Promise<RecordingServer> {
    let self: RecordingServer | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // Before the body is parsed: parsing a long conversation is the upstream's time, not the client's.
        const receivedAt = performance.now();
        const text = Buffer.concat(chunks).toString();
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          // recorded as text: the test sees what was sent
        }
        const recorded: RecordedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body,
          aborted: false,
          completed: false,
          receivedAt,
          abortedAt: null,
          firstWriteAt: null,
          lastWriteAt: null,
        };
        self!.requests.push(recorded);
        stampWrites(res, recorded);
        res.on('finish', () => {
          recorded.completed = true;
          self!.wake();
        });
        res.on('close', () => {
          if (!res.writableFinished) {
            recorded.aborted = true;
            recorded.abortedAt = performance.now();
          }
          self!.wake();
        });
        self!.wake();
        void Promise.resolve(handler(recorded, res)).catch((error: unknown) => res.destroy(error as Error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new RecordingServer(server, `http://127.0.0.1:${port}/v1`);
    return self;
  }

  /** Resolves when `test` holds (checked at every request event), or rejects after `timeoutMs`. */
  async waitUntil(test: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('the fake server did not see what was expected in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 50));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

function stampWrites(res: ServerResponse, recorded: RecordedRequest): void {
  const stamp = () => {
    recorded.lastWriteAt = performance.now();
    recorded.firstWriteAt ??= recorded.lastWriteAt;
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((...args: unknown[]) => {
    stamp();
    return write(...args);
  }) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    if (typeof args[0] !== 'function' && args[0] !== undefined) stamp();
    return end(...args);
  }) as ServerResponse['end'];
}

/** Resolves after `ms`, or at once when the response closed (the client went away). */
export function pause(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    res.once('close', done);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
  });
}
