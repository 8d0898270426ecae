import type { WebSocket } from 'ws';
import type { Membership, Rotation } from '../../platform/clock/rotation';
import type { TickScheduler } from '../../platform/clock/tick-scheduler';

export interface KeepAliveSettings {
  /** Between pings on each socket; 0 turns pings (and dead-peer detection) off. */
  pingIntervalMs: number;
  /** A ping unanswered this long means the peer is gone. */
  pongTimeoutMs: number;
}

interface Watched {
  ws: WebSocket;
  onDead: () => void;
  lastPingAt: number;
  /** When the oldest unanswered ping was sent; null when every ping was answered. */
  unansweredSince: number | null;
  membership: Membership | null;
}

/**
 * Pings every socket and reports a peer that stops answering. Pings keep idle sockets open behind
 * proxies that cut idle connections (clients answer them automatically, per RFC 6455), and a peer that
 * vanished without a FIN (a dead NAT, a sleeping laptop) is found within pongTimeoutMs of a ping instead
 * of at the session limit. No timer of its own: the sockets are a rotation of the shared clock, spread
 * over its ticks, so each tick checks (and pings) only its share of them.
 */
export class SocketKeepAlive {
  private readonly rotation: Rotation<Watched> | null;

  constructor(
    private readonly settings: KeepAliveSettings,
    private readonly clock: TickScheduler,
  ) {
    if (!this.enabled) {
      this.rotation = null;
      return;
    }
    // Each socket is checked this often: a dead peer is closed within a quarter of the shorter period of its deadline.
    const checkMs = Math.max(50, Math.min(1000, Math.min(settings.pingIntervalMs, settings.pongTimeoutMs) / 4));
    const slots = Math.max(1, Math.round(checkMs / clock.tickMs));
    this.rotation = clock.rotation<Watched>(checkMs, slots, (share) => this.check(share));
  }

  get enabled(): boolean {
    return this.settings.pingIntervalMs > 0;
  }

  /** Watches a socket until it closes; onDead runs once if it stops answering pings. */
  watch(ws: WebSocket, onDead: () => void): void {
    if (this.rotation === null) return;
    const entry: Watched = { ws, onDead, lastPingAt: this.clock.now(), unansweredSince: null, membership: null };
    entry.membership = this.rotation.join(entry);
    ws.on('pong', () => (entry.unansweredSince = null));
    ws.once('close', () => this.forget(entry));
  }

  /** Forgets every socket (shutdown). */
  stop(): void {
    this.rotation?.clear();
  }

  /** One slot's sockets: reports the dead, pings those due. */
  private check(share: readonly Watched[]): void {
    const now = this.clock.now();
    for (const entry of share) {
      if (entry.membership === null) continue;
      if (entry.unansweredSince !== null && now - entry.unansweredSince >= this.settings.pongTimeoutMs) {
        this.forget(entry);
        entry.onDead();
        continue;
      }
      if (now - entry.lastPingAt >= this.settings.pingIntervalMs && entry.ws.readyState === entry.ws.OPEN) {
        entry.lastPingAt = now;
        entry.unansweredSince ??= now;
        entry.ws.ping();
      }
    }
  }

  private forget(entry: Watched): void {
    entry.membership?.leave();
    entry.membership = null;
  }
}
