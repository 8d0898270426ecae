import { Client, type ClientConfig, type Pool, type PoolClient } from 'pg';

/** What a request that needs the database is told while it is away (`retry_after_ms`). */
export const DATABASE_RETRY_MS = 2000;
/**
 * A pool statement answered this recently when the probe's time limit runs out: the server is slow,
 * not away. Short, so that a partition starting during a probe still shows within a second or two.
 */
const ANSWERING_WITHIN_MS = 300;

/**
 * Thrown at once, instead of waiting on the pool, while the database is known to be away; the
 * error renderer answers it (and any connection-level failure) with 503 `database_unavailable`.
 */
export class DatabaseUnavailableError extends Error {
  readonly code = 'DATABASE_UNAVAILABLE';
  constructor(
    readonly downSinceMs: number,
    cause?: unknown,
  ) {
    super('the database is unavailable', { cause });
  }
}

/** Socket errors: a database failure only when they come from the driver. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const CONNECTION_CODES = new Set([
  'DATABASE_UNAVAILABLE',
  '57P01', // admin_shutdown (the server is stopping)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '08000',
  '08003',
  '08006', // connection_exception family
  '08001',
  '08004',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is not open|Query read timeout|the database system is (starting up|shutting down)|server closed the connection|no more connections allowed|pgbouncer cannot connect|server conn crashed|server login has been failing/i;

/**
 * Whether `error` (a pg error, TypeORM's QueryFailedError around one, or ours) says the database could
 * not be reached or its connection died, as opposed to a statement it refused. Walks `driverError`
 * and `cause`. A bare socket error (ECONNREFUSED) counts only `fromDriver` or inside a driver error:
 * elsewhere it may be a speech engine's.
 */
export function isDatabaseConnectionError(error: unknown, fromDriver = false): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    if (e instanceof DatabaseUnavailableError) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    // SQLSTATE class 08 is "connection exception" (PgBouncer answers 08P01 for a server it cannot reach).
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    if (typeof code === 'string' && SOCKET_CODES.has(code) && (fromDriver || depth > 0)) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
    const next = e as { driverError?: unknown; cause?: unknown };
    e = next.driverError ?? next.cause;
  }
  return false;
}

export interface AvailabilityLog {
  warn(message: string): void;
  log(message: string): void;
}

export interface DatabaseAvailabilityOptions {
  /** The pool's client options (URL, timeouts) for the probe's own connection. */
  client: ClientConfig;
  /** Between probes, up or down (default 500 ms). */
  probeIntervalMs?: number;
  /** A probe slower than this is a failure (default 1200 ms): what finds a partition. */
  probeTimeoutMs?: number;
  /**
   * The server runs one statement at a time (the embedded database): a probe waits behind the pool's
   * statements in flight, so its time limit counts only while none is running. A long statement there
   * is work, not an outage, and cutting its connection would lose it.
   */
  serialised?: boolean;
  log: AvailabilityLog;
}

type Listener = () => void | Promise<string | void>;
type ConnectCallback = (error: Error | undefined, client: PoolClient | undefined, release: () => void) => void;

/**
 * Whether the database answers, kept by a probe (SELECT 1 every `probeIntervalMs` on a connection of
 * its own, `probeTimeoutMs` at most) and by every pool connection's failures. While it is down the
 * pool's `connect` fails at once with DatabaseUnavailableError (no request waits on a connect timeout),
 * connections it had handed out are cut (so a partition cannot hold a statement), and the probe opens a
 * fresh connection each time until one answers. One warning when it goes, one line when it returns
 * (with how long it was gone and what the `onUp` listeners wrote back).
 */
export class DatabaseAvailability {
  private down: { sinceMs: number; reason: string } | null = null;
  private recoveredAtMs: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private probeClient: Client | null = null;
  private probing = false;
  private stopped = false;
  private readonly clients = new Set<PoolClient>();
  /** Pool statements sent and not yet answered. */
  private inFlight = 0;
  /** When a pool statement was last answered (Date.now()). */
  private lastAnswerMs = 0;
  private readonly upListeners: Listener[] = [];
  private readonly probeIntervalMs: number;
  private readonly probeTimeoutMs: number;

  constructor(private readonly options: DatabaseAvailabilityOptions) {
    this.probeIntervalMs = options.probeIntervalMs ?? 500;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 1200;
  }

  get isUp(): boolean {
    return this.down === null;
  }

  /**
   * Epoch ms of the last recovery from an outage (null: none since the start). Until every holder's
   * heartbeat has been written again, a session's old heartbeat says nothing about its holder.
   */
  get recoveredAt(): number | null {
    return this.recoveredAtMs;
  }

  /** For `/readyz` and the metrics. */
  get state(): 'up' | 'down' {
    return this.down === null ? 'up' : 'down';
  }

  /** Throws DatabaseUnavailableError while down. */
  assertUp(): void {
    if (this.down) throw new DatabaseUnavailableError(this.down.sinceMs);
  }

  /** Runs after each recovery, in order; what a listener resolves with goes into the recovery line. */
  onUp(listener: Listener): void {
    this.upListeners.push(listener);
  }

  /** Wraps the pool TypeORM uses and starts probing. */
  attach(pool: Pool): this {
    const connect = pool.connect.bind(pool) as (cb: ConnectCallback) => void;
    const wrapped = (callback?: ConnectCallback): Promise<PoolClient> | void => {
      if (!callback) {
        return new Promise((resolve, reject) => {
          void wrapped((error, client) => (error ? reject(error) : resolve(client!)));
        });
      }
      if (this.down) {
        const error = new DatabaseUnavailableError(this.down.sinceMs);
        return void process.nextTick(() => callback(error, undefined, () => undefined));
      }
      connect((error, client, release) => {
        if (error) {
          if (!isDatabaseConnectionError(error, true)) return callback(error, client, release);
          this.markDown(error);
          const unavailable = new DatabaseUnavailableError(this.down?.sinceMs ?? Date.now(), error);
          return callback(unavailable, client, release);
        }
        this.watchClient(client!);
        callback(undefined, client, release);
      });
    };
    (pool as unknown as { connect: typeof wrapped }).connect = wrapped;
    pool.on('error', (error) => {
      if (isDatabaseConnectionError(error, true)) this.markDown(error);
    });
    this.schedule();
    return this;
  }

  /** A connection-level failure seen anywhere: marks the database down (probing then restores it). */
  reportFailure(error: unknown): void {
    if (isDatabaseConnectionError(error, true) && !(error instanceof DatabaseUnavailableError)) this.markDown(error);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.dropProbeClient();
  }

  /** Cuts every connection handed out: statements on a dead or partitioned server fail now, not later. */
  cutConnections(): void {
    for (const client of this.clients) destroySocket(client);
    this.clients.clear();
  }

  private watchClient(client: PoolClient): void {
    if (this.clients.has(client)) return;
    this.clients.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const failed = (error: unknown) => {
      if (isDatabaseConnectionError(error, true)) this.markDown(error);
    };
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        const cb = last as (error: unknown, ...rest: unknown[]) => void;
        this.inFlight++;
        args[args.length - 1] = (error: unknown, ...rest: unknown[]) => {
          this.answered();
          if (error) failed(error);
          cb(error, ...rest);
        };
        return query(...args);
      }
      const result = query(...args);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        this.inFlight++;
        (result as Promise<unknown>).then(
          () => this.answered(),
          (error: unknown) => {
            this.answered();
            failed(error);
          },
        );
      }
      return result;
    };
    client.on('error', failed);
    client.once('end', () => this.clients.delete(client));
  }

  private answered(): void {
    this.inFlight--;
    this.lastAnswerMs = Date.now();
  }

  private markDown(error: unknown): void {
    if (this.stopped || this.down) return;
    const reason = error instanceof Error ? error.message : String(error);
    this.down = { sinceMs: Date.now(), reason };
    this.options.log.warn(
      `database unavailable (${reason}): requests that need it answer 503 database_unavailable, usage is kept in memory until it returns`,
    );
    this.cutConnections();
    this.dropProbeClient();
    this.schedule(0);
  }

  private schedule(delayMs = this.probeIntervalMs): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.probe(), delayMs);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    if (this.probing || this.stopped) return;
    this.probing = true;
    try {
      await this.ping();
      if (this.down) await this.recovered();
    } catch (error) {
      this.dropProbeClient();
      if (!this.down) this.markDown(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.probing = false;
      this.schedule();
    }
  }

  /** A fresh connection when there is none, then SELECT 1: each exchange within the time limit. */
  private async ping(): Promise<void> {
    if (!this.probeClient) {
      const client = new Client({
        ...this.options.client,
        // The probe's own limit covers the start-up: the driver's timer would not wait for the next read.
        connectionTimeoutMillis: 0,
        application_name: 'continuum-probe',
      });
      client.on('error', () => undefined);
      this.probeClient = client;
      await this.withinLimit(client.connect());
    }
    await this.withinLimit(this.probeClient.query('SELECT 1'));
  }

  private async withinLimit<T>(exchange: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      const expire = () => {
        // On a serialised server the probe is queued behind the statements in flight: wait them out.
        // A server that is still answering the pool is reachable, only slow (a loaded machine): what
        // the time limit is for, a partition, answers nothing.
        const answering = Date.now() - this.lastAnswerMs < ANSWERING_WITHIN_MS;
        if ((this.options.serialised && this.inFlight > 0) || answering)
          timer = setTimeout(expire, this.probeTimeoutMs);
        // Timers run before the loop reads its sockets: after a stall (a long GC, a starved CPU) the
        // answer may be waiting unread. Judge after the next read, which settles the race first.
        else setImmediate(() => reject(new Error(`the database did not answer within ${this.probeTimeoutMs} ms`)));
      };
      timer = setTimeout(expire, this.probeTimeoutMs);
    });
    try {
      return await Promise.race([exchange, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async recovered(): Promise<void> {
    const down = this.down!;
    this.down = null;
    this.recoveredAtMs = Date.now();
    const written: string[] = [];
    for (const listener of this.upListeners) {
      try {
        const said = await listener();
        if (said) written.push(said);
      } catch (error) {
        written.push(`a recovery task failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const goneMs = this.recoveredAtMs - down.sinceMs;
    this.options.log.log(
      `database available again after ${(goneMs / 1000).toFixed(1)} s` +
        (written.length > 0 ? `; ${written.join('; ')}` : ''),
    );
  }

  private dropProbeClient(): void {
    const client = this.probeClient;
    this.probeClient = null;
    if (client) destroySocket(client);
  }
}

/** pg has no way to abandon a connection at once: end() waits for the server, which may never answer. */
function destroySocket(client: Client | PoolClient): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  try {
    stream?.destroy();
  } catch {
    // already gone
  }
}
