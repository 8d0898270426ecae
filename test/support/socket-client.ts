import WebSocket from 'ws';

export interface Refusal {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** A raw ws client that records every event, for protocol tests. */
export class SocketClient {
  readonly events: any[] = [];
  readonly binary: Buffer[] = [];
  closeCode: number | null = null;
  private waiters: (() => void)[] = [];
  /** Date.now() at which each event arrived. */
  private readonly arrivals = new WeakMap<object, number>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) this.binary.push(data);
      else {
        const event = JSON.parse(data.toString());
        this.arrivals.set(event, Date.now());
        this.events.push(event);
      }
      this.wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.wake();
    });
  }

  /** Opens a socket; rejects with the HTTP refusal (status, parsed body) when the handshake is refused. */
  static open(url: string, options: WebSocket.ClientOptions & { protocols?: string[] } = {}): Promise<SocketClient> {
    const { protocols, ...rest } = options;
    const ws = new WebSocket(url, protocols ?? [], rest);
    const client = new SocketClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          reject(
            Object.assign(new Error(`refused ${res.statusCode}`), {
              refusal: { status: res.statusCode!, body: text ? JSON.parse(text) : null, headers: res.headers },
            }),
          ),
        );
      });
      ws.once('error', (e) => reject(e));
    });
  }

  static async refusal(
    url: string,
    options: WebSocket.ClientOptions & { protocols?: string[] } = {},
  ): Promise<Refusal> {
    try {
      const c = await SocketClient.open(url, options);
      c.ws.terminate();
    } catch (error) {
      const refusal = (error as { refusal?: Refusal }).refusal;
      if (refusal) return refusal;
      throw error;
    }
    throw new Error('the handshake was accepted');
  }

  send(event: object): void {
    this.ws.send(JSON.stringify(event));
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.ws.send(data, { binary });
  }

  ofType(type: string): any[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Waits until an event matches (default 10 s). */
  /** When `event` (one of `events`) arrived, in Date.now() milliseconds. */
  receivedAt(event: object): number {
    const at = this.arrivals.get(event);
    if (at === undefined) throw new Error('not an event of this client');
    return at;
  }

  async waitFor(predicate: string | ((e: any) => boolean), timeoutMs = 10_000): Promise<any> {
    const match = typeof predicate === 'string' ? (e: any) => e.type === predicate : predicate;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      if (this.closeCode !== null)
        throw new Error(`socket closed (${this.closeCode}) before the event; got ${this.types()}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting; got ${this.types()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async waitClosed(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === null) {
      if (Date.now() > deadline) throw new Error('socket did not close');
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.closeCode;
  }

  types(): string {
    return this.events.map((e) => e.type).join(',');
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
