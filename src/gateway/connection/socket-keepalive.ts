import type { WebSocket } from 'ws';

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
}

/**
 * Pings every socket and reports a peer that stops answering. Pings keep idle sockets open behind
 * proxies that cut idle connections (clients answer them automatically, per RFC 6455), and a peer that
 * vanished without a FIN (a dead NAT, a sleeping laptop) is found within pongTimeoutMs of a ping instead
 * of at the session limit. One timer for all sockets.
 */
export class SocketKeepAlive {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: KeepAliveSettings,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.settings.pingIntervalMs > 0;
  }

  /** Watches a socket until it closes; onDead runs once if it stops answering pings. */
  watch(ws: WebSocket, onDead: () => void): void {
    if (!this.enabled) return;
    const entry: Watched = { ws, onDead, lastPingAt: this.now(), unansweredSince: null };
    this.watched.add(entry);
    ws.on('pong', () => (entry.unansweredSince = null));
    ws.once('close', () => this.watched.delete(entry));
    this.timer ??= this.startTimer();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.watched.clear();
  }

  /** One pass: reports the dead, pings those due. */
  tick(): void {
    const now = this.now();
    for (const entry of this.watched) {
      if (entry.unansweredSince !== null && now - entry.unansweredSince >= this.settings.pongTimeoutMs) {
        this.watched.delete(entry);
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

  private startTimer(): NodeJS.Timeout {
    // Fine enough that a dead peer is closed within a quarter of the shorter period of its deadline.
    const period = Math.max(
      50,
      Math.min(1000, Math.min(this.settings.pingIntervalMs, this.settings.pongTimeoutMs) / 4),
    );
    const timer = setInterval(() => this.tick(), period);
    timer.unref();
    return timer;
  }
}
