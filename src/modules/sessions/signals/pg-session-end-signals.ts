import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { CONNECTION_LIMITS } from '../../../platform/database/data-source-options';
import type { SessionEndSignals } from './session-end-signals';

/** The channel every instance listens on; the payload is a session id. */
export const SESSION_END_CHANNEL = 'continuum_session_end';
const SESSION_ID = /^sess_[A-Za-z0-9]{1,60}$/;
const RECONNECT_DELAYS_MS = [100, 500, 1000, 2000, 5000];
const CLOSE_TIMEOUT_MS = 1000;

export interface PgSignalsLogger {
  warn(message: string): void;
  error(context: object, message: string): void;
}

/**
 * LISTEN/NOTIFY on PostgreSQL: one dedicated connection per instance listens (outside the pool, so a
 * busy pool never delays a DELETE), and NOTIFY goes through the pool like any statement. A dropped
 * listening connection is reopened with backoff; the gap listeners then run (the holder re-checks with
 * a heartbeat, so a DELETE sent while it was deaf still ends its socket).
 */
export class PgSessionEndSignals implements SessionEndSignals {
  private readonly listeners: ((sessionId: string) => void)[] = [];
  private readonly gapListeners: (() => void)[] = [];
  private client: Client | null = null;
  private closed = false;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly probes = new Map<string, () => void>();

  constructor(
    private readonly url: string,
    private readonly notify: (channel: string, payload: string) => Promise<unknown>,
    private readonly logger: PgSignalsLogger,
  ) {}

  /** Opens the listening connection; resolves once LISTEN is in place. */
  async start(): Promise<void> {
    const client = new Client({
      connectionString: this.url,
      application_name: 'continuum-signals',
      ...CONNECTION_LIMITS,
    });
    client.on('notification', (message) => {
      if (message.channel !== SESSION_END_CHANNEL || !message.payload) return;
      if (SESSION_ID.test(message.payload)) for (const listener of this.listeners) listener(message.payload);
      else this.probes.get(message.payload)?.();
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${SESSION_END_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
    this.attempt = 0;
  }

  /**
   * Whether a notification sent through the pool reaches the listening connection: not through a
   * pooler in transaction mode (PgBouncer), nor on a server that delivers it elsewhere.
   */
  async probe(timeoutMs: number): Promise<boolean> {
    const token = `probe_${randomUUID()}`;
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.probes.set(token, () => (clearTimeout(timer), resolve(true)));
    });
    try {
      await this.notify(SESSION_END_CHANNEL, token);
      return await heard;
    } finally {
      this.probes.delete(token);
    }
  }

  async publish(sessionId: string): Promise<void> {
    await this.notify(SESSION_END_CHANNEL, sessionId);
  }

  subscribe(listener: (sessionId: string) => void): void {
    this.listeners.push(listener);
  }

  onGap(listener: () => void): void {
    this.gapListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    if (!client) return;
    // end() waits for the server to close the socket, which a partitioned server never does: the
    // drain must not wait on it. After a second the socket is simply dropped.
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      client.end().then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    if (!ended) (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  private lost(client: Client, error: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    // A warning: the usual cause is a database outage, which the availability reports itself.
    this.logger.warn(`session signal connection lost (${error.message}); reconnecting`);
    client.end().catch(() => undefined);
    this.reconnect();
  }

  private reconnect(): void {
    const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt++, RECONNECT_DELAYS_MS.length - 1)];
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.start().then(
        () => this.gapListeners.forEach((listener) => listener()),
        () => this.closed || this.reconnect(),
      );
    }, delay);
    this.reconnectTimer.unref();
  }
}
