// @ts-check
/**
 * Serves one PGlite backend to many PostgreSQL clients over TCP.
 *
 * This replaces PGLiteSocketServer from @electric-sql/pglite-socket 0.2.17, which hands the
 * backend to whichever connection has the next *message*: two clients' Parse/Bind/Execute/Sync
 * cycles interleave on the one shared session, so one binds the other's unnamed statement
 * ("unnamed prepared statement does not exist", or silently wrong rows), and one thrown error
 * stalls its queue for good (upstream issue electric-sql/pglite#1046, still open).
 *
 * Here a client owns the backend from its first message until the backend holds nothing of its:
 * at the end of a protocol cycle (Sync, a simple Query, the startup exchange) outside a
 * transaction block. Other clients wait their turn in arrival order. A client that goes away while
 * owning the backend has its cycle ended and its transaction rolled back first.
 */
import { createServer } from 'node:net';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const TERMINATE = 0x58; // 'X'
const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const SYNC_MESSAGE = Uint8Array.from([SYNC, 0, 0, 0, 4]);

/**
 * @typedef {import('@electric-sql/pglite').PGlite} PGlite
 * @typedef {(level: 'info' | 'warn' | 'error', message: string) => void} Report
 * @typedef {(error: Error) => void} OnEngineFailure
 */

/** Hands the single backend to one connection at a time, first come first served. */
class BackendTurns {
  /** @type {Connection | null} */
  owner = null;
  /** @type {{ connection: Connection, grant: (granted: boolean) => void }[]} */
  waiting = [];

  /**
   * @param {Connection} connection
   * @returns {Promise<boolean>} false when the connection withdrew (closed) while waiting
   */
  acquire(connection) {
    if (this.owner === connection) return Promise.resolve(true);
    if (this.owner === null) {
      this.owner = connection;
      return Promise.resolve(true);
    }
    return new Promise((grant) => this.waiting.push({ connection, grant }));
  }

  /** @param {Connection} connection */
  release(connection) {
    if (this.owner !== connection) return;
    const next = this.waiting.shift();
    this.owner = next?.connection ?? null;
    next?.grant(true);
  }

  /** @param {Connection} connection */
  withdraw(connection) {
    const index = this.waiting.findIndex((entry) => entry.connection === connection);
    if (index !== -1) this.waiting.splice(index, 1)[0]?.grant(false);
  }
}

class Connection {
  /** @type {Buffer} */
  buffer = Buffer.alloc(0);
  /** @type {Uint8Array[]} */
  pending = [];
  started = false;
  pumping = false;
  closed = false;
  /** A protocol cycle was begun and not yet ended with Sync. */
  midCycle = false;
  /** @type {Promise<void> | undefined} */
  cleanup;

  /**
   * @param {import('node:net').Socket} socket
   * @param {PGlite} db
   * @param {BackendTurns} turns
   * @param {Report} report
   * @param {OnEngineFailure} onEngineFailure
   * @param {() => void} onClosed frees the connection's slot at once, not after the socket closes
   */
  constructor(socket, db, turns, report, onEngineFailure, onClosed) {
    this.socket = socket;
    this.db = db;
    this.turns = turns;
    this.report = report;
    this.onEngineFailure = onEngineFailure;
    this.onClosed = onClosed;
    /** @type {() => void} */
    let markFinished = () => undefined;
    /** Settles once the connection is closed and holds the backend no more. */
    this.finished = new Promise((resolve) => {
      markFinished = () => resolve(undefined);
    });
    this.markFinished = markFinished;
  }

  /** @param {Buffer} chunk */
  receive(chunk) {
    if (this.closed) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const message = this.started ? this.takeMessage() : this.takeStartupPacket();
      if (message === undefined || this.closed) break;
      this.pending.push(message);
    }
    void this.pump();
  }

  /** @returns {Uint8Array | undefined} */
  takeStartupPacket() {
    if (this.buffer.length < 8) return undefined;
    const length = this.buffer.readInt32BE(0);
    if (length < 8) return this.protocolViolation();
    if (this.buffer.length < length) return undefined;
    const packet = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    const code = packet.readInt32BE(4);
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      this.socket.write('N'); // no TLS: the client continues in plain text or gives up
      return this.takeStartupPacket();
    }
    if (code === CANCEL_REQUEST) {
      // PGlite cannot interrupt a running query; PostgreSQL also closes a cancel connection.
      this.shutDown();
      return undefined;
    }
    this.started = true;
    return Uint8Array.from(packet);
  }

  /** @returns {Uint8Array | undefined} */
  takeMessage() {
    if (this.buffer.length < 5) return undefined;
    const length = 1 + this.buffer.readInt32BE(1);
    if (length < 5) return this.protocolViolation();
    if (this.buffer.length < length) return undefined;
    const message = Uint8Array.from(this.buffer.subarray(0, length));
    this.buffer = this.buffer.subarray(length);
    if (message[0] === TERMINATE) {
      // Never forwarded: the backend session is shared and must outlive every client.
      this.shutDown();
      return undefined;
    }
    return message;
  }

  /** @returns {undefined} */
  protocolViolation() {
    this.report('warn', 'closing a client that sent a malformed message');
    this.shutDown();
    return undefined;
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && this.pending.length > 0) {
        const message = /** @type {Uint8Array} */ (this.pending.shift());
        if (!(await this.turns.acquire(this)) || this.closed) return;
        // A startup packet starts with its length, whose high byte is 0; the startup exchange
        // ends with ReadyForQuery like a cycle does.
        const endsCycle = message[0] === SYNC || message[0] === QUERY || message[0] === 0;
        // Until the message has run, assume the worst: a Sync too many is harmless.
        this.midCycle = true;
        await this.forward(message);
        this.midCycle = !endsCycle;
        if (endsCycle && !this.db.isInTransaction()) this.turns.release(this);
      }
    } catch (error) {
      // A WASM trap (abort, out of memory) leaves PGlite unusable for every client: better to
      // exit and let the app see it than to keep serving errors. Committed data is in the WAL.
      if (error instanceof globalThis.WebAssembly.RuntimeError) this.onEngineFailure(error);
      this.report('error', `client connection failed: ${error instanceof Error ? error.message : String(error)}`);
      this.shutDown();
    } finally {
      this.pumping = false;
      if (this.closed) await this.releaseBackend();
    }
  }

  /** @param {Uint8Array} message */
  forward(message) {
    return this.db.runExclusive(() =>
      this.db.execProtocolRawStream(message, {
        onRawData: (data) => {
          // PGlite hands out a view of WASM memory that its next call overwrites: copy it.
          if (!this.closed && this.socket.writable) this.socket.write(Buffer.from(data));
        },
      }),
    );
  }

  /** Closes the client side; the backend is released once no message of ours is running. */
  shutDown() {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    this.turns.withdraw(this);
    this.socket.destroy();
    this.onClosed();
    if (!this.pumping) void this.releaseBackend();
  }

  /** @returns {Promise<void>} */
  releaseBackend() {
    this.cleanup ??= (async () => {
      if (this.turns.owner !== this) return this.markFinished();
      try {
        // An unfinished extended-protocol cycle would make the backend skip the next client's
        // messages until a Sync; an open transaction would become the next client's.
        if (this.midCycle) await this.execDiscarding(SYNC_MESSAGE);
        if (this.db.isInTransaction()) await this.execDiscarding(queryMessage('ROLLBACK'));
      } catch (error) {
        this.report('error', `could not reset the session after a client left: ${String(error)}`);
      } finally {
        this.turns.release(this);
        this.markFinished();
      }
    })();
    return this.cleanup;
  }

  /** @param {Uint8Array} message */
  execDiscarding(message) {
    return this.db.runExclusive(() => this.db.execProtocolRawStream(message, { onRawData: () => undefined }));
  }
}

/** @param {string} sql */
function queryMessage(sql) {
  const body = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(5 + body.length);
  message[0] = QUERY;
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return message;
}

/**
 * An ErrorResponse, so that a refused client reports why instead of "connection reset".
 * @param {string} code
 * @param {string} text
 */
function fatalMessage(code, text) {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`, 'utf8');
  const message = Buffer.alloc(5 + fields.length);
  message[0] = 0x45; // 'E'
  message.writeInt32BE(4 + fields.length, 1);
  fields.copy(message, 5);
  return message;
}

export class WireServer {
  /** @type {Set<Connection>} */
  connections = new Set();
  turns = new BackendTurns();

  /**
   * @param {{
   *   db: PGlite, host: string, port: number, maxConnections: number,
   *   report: Report, onEngineFailure: OnEngineFailure
   * }} options
   */
  constructor(options) {
    this.options = options;
    this.server = createServer((socket) => this.accept(socket));
  }

  /** @returns {Promise<{ host: string, port: number }>} */
  listen() {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        if (address === null || typeof address === 'string') {
          reject(new Error('the server has no TCP address'));
          return;
        }
        resolve({ host: this.options.host, port: address.port });
      });
    });
  }

  /** @param {import('node:net').Socket} socket */
  accept(socket) {
    socket.setNoDelay(true);
    socket.on('error', () => undefined); // a reset client; 'close' follows
    if (this.connections.size >= this.options.maxConnections) {
      socket.end(fatalMessage('53300', 'sorry, too many clients already'));
      return;
    }
    const { db, report, onEngineFailure } = this.options;
    const connection = new Connection(socket, db, this.turns, report, onEngineFailure, () =>
      this.connections.delete(connection),
    );
    this.connections.add(connection);
    socket.on('data', (chunk) => connection.receive(chunk));
    socket.on('close', () => connection.shutDown());
  }

  /** Stops accepting, drops every client and waits until none holds the backend. */
  async close() {
    const closed = new Promise((resolve) => this.server.close(resolve));
    const connections = [...this.connections];
    for (const connection of connections) connection.shutDown();
    await Promise.all(connections.map((connection) => connection.finished));
    await closed;
  }
}
