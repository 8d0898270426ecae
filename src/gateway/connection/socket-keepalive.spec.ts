import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { ManualClockHost } from '../../platform/clock/testing/manual-clock-host';
import { TickScheduler } from '../../platform/clock/tick-scheduler';
import { SocketKeepAlive } from './socket-keepalive';

/** A socket as the keep-alive sees it: pings counted (with their time), pongs and closes emitted by the test. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  pingTimes: number[] = [];
  constructor(private readonly now: () => number) {
    super();
  }
  get pings(): number {
    return this.pingTimes.length;
  }
  ping(): void {
    this.pingTimes.push(this.now());
  }
}

describe('SocketKeepAlive', () => {
  const setup = (pingIntervalMs = 1000, pongTimeoutMs = 500) => {
    const host = new ManualClockHost(0);
    const clock = new TickScheduler({ tickMs: 5, host });
    const keepAlive = new SocketKeepAlive({ pingIntervalMs, pongTimeoutMs }, clock);
    const started = clock.now();
    const elapsed = () => clock.now() - started;
    const socket = new FakeSocket(elapsed);
    const dead = jest.fn(() => socket.emit('close'));
    keepAlive.watch(socket as unknown as WebSocket, dead);
    /** Advances the shared clock to `ms` after the socket was watched. */
    const at = (ms: number) => host.advance(ms - elapsed());
    return { host, clock, keepAlive, socket, dead, at, elapsed };
  };

  it('pings every interval (checked every quarter of the shorter period) and keeps a peer that answers', () => {
    const { keepAlive, socket, dead, at } = setup();
    at(999);
    expect(socket.pings).toBe(0);
    at(1125); // checked every 125 ms
    expect(socket.pings).toBe(1);
    expect(socket.pingTimes[0]).toBeGreaterThanOrEqual(1000);
    socket.emit('pong');
    for (let t = 1250; t <= 10_125; t += 125) {
      at(t);
      socket.emit('pong'); // answered within a check
    }
    expect(socket.pings).toBeGreaterThanOrEqual(9);
    for (let i = 1; i < socket.pings; i++) {
      expect(socket.pingTimes[i] - socket.pingTimes[i - 1]).toBeGreaterThanOrEqual(1000);
      expect(socket.pingTimes[i] - socket.pingTimes[i - 1]).toBeLessThan(1000 + 125 + 5);
    }
    expect(dead).not.toHaveBeenCalled();
    keepAlive.stop();
  });

  it('reports a peer whose ping goes unanswered for the timeout, once', () => {
    const { keepAlive, socket, dead, at } = setup();
    at(1125);
    expect(socket.pings).toBe(1);
    const pingAt = socket.pingTimes[0];
    at(pingAt + 499);
    expect(dead).not.toHaveBeenCalled();
    at(pingAt + 500 + 125);
    expect(dead).toHaveBeenCalledTimes(1);
    at(6000);
    expect(dead).toHaveBeenCalledTimes(1);
    expect(socket.pings).toBe(1);
    keepAlive.stop();
  });

  it('counts from the first unanswered ping, not the last one sent', () => {
    const { keepAlive, socket, dead, at } = setup(200, 500);
    at(250); // checked every 50 ms: the first ping, unanswered
    expect(socket.pings).toBe(1);
    const first = socket.pingTimes[0];
    at(first + 450);
    expect(socket.pings).toBeGreaterThanOrEqual(2); // pinged again meanwhile
    expect(dead).not.toHaveBeenCalled();
    at(first + 550);
    expect(dead).toHaveBeenCalledTimes(1);
    keepAlive.stop();
  });

  it('spreads the sockets over the ticks: a tick pings only its share', () => {
    const host = new ManualClockHost(0);
    const clock = new TickScheduler({ tickMs: 5, host });
    const keepAlive = new SocketKeepAlive({ pingIntervalMs: 1000, pongTimeoutMs: 500 }, clock);
    const perTick = new Map<number, number>();
    const sockets = Array.from({ length: 100 }, () => {
      const socket = new FakeSocket(() => host.monotonicMs());
      socket.ping = () => perTick.set(host.monotonicMs(), (perTick.get(host.monotonicMs()) ?? 0) + 1);
      keepAlive.watch(socket as unknown as WebSocket, () => undefined);
      return socket;
    });
    host.advance(1200);
    const counts = [...perTick.values()];
    expect(counts.reduce((a, b) => a + b, 0)).toBe(100); // every socket pinged once
    // 125 ms of checks over 5 ms ticks: 25 slots, 4 sockets each.
    expect(Math.max(...counts)).toBeLessThanOrEqual(4);
    expect(sockets).toHaveLength(100);
    keepAlive.stop();
    expect(clock.stats().members).toBe(0);
  });

  it('forgets a closed socket (it leaves the clock), and does nothing when pings are off', () => {
    const { clock, keepAlive, socket, dead, at } = setup();
    expect(clock.stats().members).toBe(1);
    socket.emit('close');
    expect(clock.stats().members).toBe(0);
    at(1000);
    at(5000);
    expect({ pings: socket.pings, dead: dead.mock.calls.length }).toEqual({ pings: 0, dead: 0 });
    keepAlive.stop();
    const off = new SocketKeepAlive({ pingIntervalMs: 0, pongTimeoutMs: 500 }, clock);
    const other = new FakeSocket(() => 0);
    off.watch(other as unknown as WebSocket, dead);
    expect(off.enabled).toBe(false);
    expect(clock.stats().members).toBe(0);
    expect(other.listenerCount('pong')).toBe(0);
  });
});
