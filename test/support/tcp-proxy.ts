import { createServer, connect, Socket, type Server } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can play its outages: `forward` passes bytes both ways;
 * `refuse` (a restart) closes every connection and refuses new ones at once; `blackhole` (a
 * partition) keeps connections open and accepts new ones but forwards nothing, either way.
 */
export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

export class TcpProxy {
  private mode: ProxyMode = 'forward';
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const holder: { proxy?: TcpProxy } = {};
    const server = createServer((client) => holder.proxy!.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    holder.proxy = new TcpProxy(server, address.port);
    return holder.proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  setMode(mode: ProxyMode): void {
    this.mode = mode;
    if (mode === 'refuse') {
      for (const { client, upstream } of this.pairs) {
        client.destroy();
        upstream.destroy();
      }
      this.pairs.clear();
    }
    if (mode === 'forward') {
      // Connections held through a partition carry whatever was half-sent: a real network that
      // comes back would deliver it, but the server has long given up on them. End them.
      for (const { client, upstream } of this.pairs) {
        if ((client as Socket & { held?: boolean }).held) {
          client.destroy();
          upstream.destroy();
        }
      }
    }
  }

  get connections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    this.setMode('refuse');
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    client.on('error', () => undefined);
    if (this.mode === 'blackhole') {
      // Accepted, never answered: a connect timeout must notice.
      (client as Socket & { held?: boolean }).held = true;
      const pair = { client, upstream: new Socket() };
      this.pairs.add(pair);
      client.on('close', () => this.pairs.delete(pair));
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    const pair = { client, upstream };
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    const relay = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (this.mode === 'forward') {
          to.write(chunk);
          return;
        }
        (client as Socket & { held?: boolean }).held = true; // swallowed: this connection is broken now
      });
    relay(client, upstream);
    relay(upstream, client);
  }
}
