import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { wsTransport } from './ws-transport';

/** A real ws pair over loopback; the server side's socket counts the writes that reach it. */
async function pair(): Promise<{ server: WebSocket; client: WebSocket; writes: () => number; close: () => void }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  await new Promise<void>((resolve, reject) => {
    client.once('open', () => resolve());
    client.once('error', reject);
  });
  const server = await accepted;
  // What net.Socket hands the kernel: _writev for several chunks at once, _write for one.
  const socket = (server as unknown as { _socket: Duplex & { _writev: unknown; _write: unknown } })._socket;
  let writes = 0;
  for (const method of ['_writev', '_write'] as const) {
    const original = socket[method] as (...args: unknown[]) => void;
    socket[method] = function (this: unknown, ...args: unknown[]) {
      writes++;
      return original.apply(this, args);
    };
  }
  return {
    server,
    client,
    writes: () => writes,
    close: () => {
      client.terminate();
      wss.close();
    },
  };
}

function receive(client: WebSocket, count: number): Promise<{ data: string; binary: boolean }[]> {
  const got: { data: string; binary: boolean }[] = [];
  return new Promise((resolve) => {
    client.on('message', (data: Buffer, binary: boolean) => {
      got.push({ data: binary ? data.toString('hex') : data.toString('utf8'), binary });
      if (got.length === count) resolve(got);
    });
  });
}

describe('wsTransport', () => {
  it('writes the frames one call chain sends in one write, each frame intact and in order', async () => {
    const { server, client, writes, close } = await pair();
    try {
      const transport = wsTransport(server);
      const frames = receive(client, 4);
      const before = writes();
      transport.send('{"type":"a"}');
      transport.send(Buffer.from([1, 2, 3]));
      transport.send('{"type":"b","delta":"' + 'x'.repeat(5000) + '"}');
      transport.send('{"type":"c"}');
      expect(writes() - before).toBe(0); // held until the chain ends
      await new Promise((resolve) => process.nextTick(resolve));
      expect(writes() - before).toBe(1); // one writev for four frames (each was header + payload)
      expect(await frames).toEqual([
        { data: '{"type":"a"}', binary: false },
        { data: '010203', binary: true },
        { data: '{"type":"b","delta":"' + 'x'.repeat(5000) + '"}', binary: false },
        { data: '{"type":"c"}', binary: false },
      ]);
      // A later chain is a write of its own.
      const next = receive(client, 1);
      transport.send('{"type":"d"}');
      await next;
      expect(writes() - before).toBe(2);
    } finally {
      close();
    }
  });

  it('sends what the chain sent before the close frame', async () => {
    const { server, client, close } = await pair();
    try {
      const transport = wsTransport(server);
      const got: string[] = [];
      client.on('message', (data: Buffer) => got.push(data.toString('utf8')));
      const closed = new Promise<number>((resolve) => client.once('close', (code: number) => resolve(code)));
      transport.send('{"type":"last"}');
      transport.close(1000, 'done');
      expect(await closed).toBe(1000);
      expect(got).toEqual(['{"type":"last"}']);
    } finally {
      close();
    }
  });
});
