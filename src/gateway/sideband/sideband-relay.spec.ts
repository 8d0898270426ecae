import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket, { WebSocketServer } from 'ws';
import { relaySideband, RELAY_HIGH_WATER_BYTES } from './sideband-relay';

/**
 * The relay between real sockets: an "owner" server (the instance that holds the call), a relaying
 * server that dials it for each client as the gateway does, and the client.
 */
describe('relaySideband', () => {
  let ownerServer: WebSocketServer;
  let relayServer: WebSocketServer;
  /** The owner's side of each relayed sideband, and the relay's two sockets. */
  let atOwner: WebSocket[];
  let relays: { client: WebSocket; owner: WebSocket; done: Promise<void> }[];
  const opened: WebSocket[] = [];

  const listening = (server: WebSocketServer) => new Promise<void>((resolve) => server.once('listening', resolve));
  const portOf = (server: WebSocketServer) => (server.address() as AddressInfo).port;
  const until = async (check: () => boolean, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await sleep(10);
    }
  };

  beforeEach(async () => {
    atOwner = [];
    relays = [];
    ownerServer = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    ownerServer.on('connection', (ws) => atOwner.push(ws));
    relayServer = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await Promise.all([listening(ownerServer), listening(relayServer)]);
    relayServer.on('connection', (client) => {
      const owner = new WebSocket(`ws://127.0.0.1:${portOf(ownerServer)}`);
      owner.once('open', () => {
        owner.pause();
        relays.push({ client, owner, done: relaySideband({ client, owner }) });
      });
    });
  });

  afterEach(async () => {
    for (const ws of [...opened, ...atOwner]) ws.terminate();
    opened.length = 0;
    await Promise.all([ownerServer, relayServer].map((s) => new Promise((resolve) => s.close(resolve))));
  });

  async function connect(): Promise<{ client: WebSocket; owner: WebSocket }> {
    const client = new WebSocket(`ws://127.0.0.1:${portOf(relayServer)}`);
    opened.push(client);
    await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
    await until(() => atOwner.length === relays.length && relays.length > 0 && atOwner.length >= opened.length);
    return { client, owner: atOwner.at(-1)! };
  }
  const received = (ws: WebSocket) => {
    const frames: { text: string; binary: boolean }[] = [];
    ws.on('message', (data, binary) => frames.push({ text: data.toString(), binary }));
    return frames;
  };
  const closeOf = (ws: WebSocket) =>
    new Promise<{ code: number; reason: string }>((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );

  it('carries frames both ways as they were sent (text as text, binary as binary)', async () => {
    const { client, owner } = await connect();
    const atClient = received(client);
    const fromClient = received(owner);
    owner.send(JSON.stringify({ type: 'session.updated' }));
    client.send(JSON.stringify({ type: 'response.create' }));
    client.send(Buffer.from([1, 2, 3]));
    await until(() => atClient.length === 1 && fromClient.length === 2);
    expect(atClient).toEqual([{ text: '{"type":"session.updated"}', binary: false }]);
    expect(fromClient).toEqual([
      { text: '{"type":"response.create"}', binary: false },
      { text: '\u0001\u0002\u0003', binary: true },
    ]);
  });

  it("ends the owner's side with the client's close code and reason, and the other way round", async () => {
    const first = await connect();
    const atOwnerClosed = closeOf(first.owner);
    first.client.close(4000, 'app done');
    expect(await atOwnerClosed).toEqual({ code: 4000, reason: 'app done' });
    await relays[0].done;

    const second = await connect();
    const atClientClosed = closeOf(second.client);
    second.owner.close(1000, 'call ended');
    expect(await atClientClosed).toEqual({ code: 1000, reason: 'call ended' });
    await relays[1].done;
  });

  it('closes the client 1011 call_owner_lost when the owner vanishes without a close, and 1001 the other way', async () => {
    const first = await connect();
    const atClientClosed = closeOf(first.client);
    first.owner.terminate();
    expect(await atClientClosed).toEqual({ code: 1011, reason: 'call_owner_lost' });

    const second = await connect();
    const atOwnerClosed = closeOf(second.owner);
    second.client.terminate();
    expect(await atOwnerClosed).toEqual({ code: 1001, reason: 'client_lost' });
  });

  it('closes the client at once when the owner closed before the relay started', async () => {
    const owner = new WebSocket(`ws://127.0.0.1:${portOf(ownerServer)}`);
    await new Promise((resolve) => owner.once('open', resolve));
    owner.terminate();
    await until(() => owner.readyState === owner.CLOSED);
    const client = new WebSocket(`ws://127.0.0.1:${portOf(ownerServer)}`);
    opened.push(client);
    await new Promise((resolve) => client.once('open', resolve));
    const closed = closeOf(client);
    await relaySideband({ client: atOwner.at(-1)!, owner });
    expect((await closed).code).toBe(1011);
  });

  it('stops reading the owner while the client does not read, holding no more than the high-water mark, and loses nothing', async () => {
    const { client, owner } = await connect();
    const relay = relays[0];
    const FRAME = 'x'.repeat(64 * 1024);
    const COUNT = 400; // 25 MiB, far past what the sockets' buffers hold
    let got = 0;
    let inOrder = true;
    client.on('message', (data) => {
      if (!data.toString().startsWith(`${got}:`)) inOrder = false;
      got++;
    });
    client.pause();
    for (let i = 0; i < COUNT; i++) owner.send(`${i}:${FRAME}`);
    // The owner's own socket backs up: the relay stopped reading it.
    await until(() => relay.owner.isPaused && owner.bufferedAmount > 4 * 1024 * 1024, 10_000);
    await sleep(200);
    expect(relay.client.bufferedAmount).toBeLessThanOrEqual(RELAY_HIGH_WATER_BYTES + FRAME.length + 16);
    client.resume();
    await until(() => got === COUNT, 20_000);
    expect(inOrder).toBe(true);
    expect(relay.owner.isPaused).toBe(false);
  }, 30_000);
});
