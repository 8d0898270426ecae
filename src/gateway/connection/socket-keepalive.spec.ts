import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { SocketKeepAlive } from './socket-keepalive';

/** A socket as the keep-alive sees it: pings counted, pongs and closes emitted by the test. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  pings = 0;
  ping(): void {
    this.pings++;
  }
}

describe('SocketKeepAlive', () => {
  let clock = 0;
  const setup = (pingIntervalMs = 1000, pongTimeoutMs = 500) => {
    clock = 0;
    const keepAlive = new SocketKeepAlive({ pingIntervalMs, pongTimeoutMs }, () => clock);
    const socket = new FakeSocket();
    const dead = jest.fn();
    keepAlive.watch(socket as unknown as WebSocket, dead);
    const at = (ms: number) => {
      clock = ms;
      keepAlive.tick();
    };
    return { keepAlive, socket, dead, at };
  };
  afterEach(() => jest.restoreAllMocks());

  it('pings every interval and keeps a peer that answers', () => {
    const { keepAlive, socket, dead, at } = setup();
    at(999);
    expect(socket.pings).toBe(0);
    for (let t = 1000; t <= 10_000; t += 1000) {
      at(t);
      at(t + 100);
      socket.emit('pong');
    }
    expect(socket.pings).toBe(10);
    expect(dead).not.toHaveBeenCalled();
    keepAlive.stop();
  });

  it('reports a peer whose ping goes unanswered for the timeout, once', () => {
    const { keepAlive, socket, dead, at } = setup();
    at(1000); // ping
    at(1499);
    expect(dead).not.toHaveBeenCalled();
    at(1500);
    expect(dead).toHaveBeenCalledTimes(1);
    at(5000);
    expect(dead).toHaveBeenCalledTimes(1);
    expect(socket.pings).toBe(1);
    keepAlive.stop();
  });

  it('counts from the first unanswered ping, not the last one sent', () => {
    const { keepAlive, dead, at } = setup(200, 500);
    at(200); // first ping, unanswered
    at(400); // second ping
    at(600);
    expect(dead).not.toHaveBeenCalled();
    at(700);
    expect(dead).toHaveBeenCalledTimes(1);
    keepAlive.stop();
  });

  it('forgets a closed socket, and does nothing when pings are off', () => {
    const { keepAlive, socket, dead, at } = setup();
    socket.emit('close');
    at(1000);
    at(5000);
    expect({ pings: socket.pings, dead: dead.mock.calls.length }).toEqual({ pings: 0, dead: 0 });
    keepAlive.stop();
    const off = new SocketKeepAlive({ pingIntervalMs: 0, pongTimeoutMs: 500 }, () => clock);
    const other = new FakeSocket();
    off.watch(other as unknown as WebSocket, dead);
    expect(off.enabled).toBe(false);
    off.tick();
    expect(other.listenerCount('pong')).toBe(0);
  });
});
