#!/usr/bin/env node
// @ts-check
/**
 * Serves one PGlite data directory over the PostgreSQL wire protocol from its own process, so
 * that PGlite's WASM (which blocks its thread for the whole of every query) never stalls the app.
 *
 *   node host.mjs --data-dir DIR [--host 127.0.0.1] [--port 0] [--max-connections 16]
 *                 [--watch-parent] [--shutdown-timeout-ms 30000]
 *
 * stdout carries exactly one line, when the server accepts connections:
 *   {"event":"ready","host":"127.0.0.1","port":41234,"pid":123,"created":false,"startupMs":512}
 * Everything else goes to stderr: PostgreSQL's log lines as they are, and the host's own lines as
 * `pglite-host [info|warn|error] message`.
 * Exit codes: 0 after a clean shutdown, 1 on a fatal error, 3 when the data directory is locked.
 *
 * It shuts down cleanly on SIGTERM/SIGINT and, with --watch-parent, when stdin closes or the
 * parent process goes away, so an app that dies leaves no orphan holding the data directory.
 */
import { mkdirSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createCluster, hasCluster } from './cluster-init.mjs';
import { DataDirLockedError, acquireDataDirLock } from './data-dir-lock.mjs';
import { WireServer } from './wire-server.mjs';

const EXIT_FATAL = 1;
const EXIT_LOCKED = 3;
const HOST_SCRIPT = fileURLToPath(import.meta.url);

/**
 * Released by every exit path, fatal ones included; a lock left behind by SIGKILL is stale and
 * gets taken over by the next start.
 * @type {{ release(): void } | undefined}
 */
let heldLock;

/**
 * @typedef {{
 *   dataDir: string, host: string, port: number, maxConnections: number,
 *   watchParent: boolean, initOnly: boolean, shutdownTimeoutMs: number
 * }} HostOptions
 * @typedef {{ stop(): Promise<void> }} Closable
 */

/** @returns {HostOptions} */
function readOptions() {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      // Connections are cheap here (they share one backend); the limit only stops a runaway client.
      'max-connections': { type: 'string', default: '16' },
      'watch-parent': { type: 'boolean', default: false },
      'init-only': { type: 'boolean', default: false },
      'shutdown-timeout-ms': { type: 'string', default: '30000' },
    },
    strict: true,
  });
  const dataDir = values['data-dir'];
  if (!dataDir) throw new Error('--data-dir is required');
  return {
    dataDir: resolve(dataDir),
    host: values.host,
    port: toInteger('--port', values.port, 0, 65535),
    maxConnections: toInteger('--max-connections', values['max-connections'], 1, 1000),
    watchParent: values['watch-parent'],
    initOnly: values['init-only'],
    shutdownTimeoutMs: toInteger('--shutdown-timeout-ms', values['shutdown-timeout-ms'], 1, 3_600_000),
  };
}

/**
 * @param {string} name
 * @param {string} text
 * @param {number} min
 * @param {number} max
 */
function toInteger(name, text, min, max) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** PostgreSQL's own log is diagnostics, never protocol: keep it off stdout. */
const pgliteOutput = {
  /** @param {string} text */
  onStdout: (text) => {
    if (text.trim() !== '' && text !== 'backend> ') process.stderr.write(`${text}\n`);
    return false;
  },
  /** @param {string} text */
  onStderr: (text) => {
    process.stderr.write(`${text}\n`);
    return false;
  },
};

/** @param {string} dataDir */
async function openDatabase(dataDir) {
  // Loaded only after the lock is held, so a refused start answers at once.
  const { PGlite } = await import('@electric-sql/pglite');
  const { uuid_ossp } = await import('@electric-sql/pglite/contrib/uuid_ossp');
  const { pgcrypto } = await import('@electric-sql/pglite/contrib/pgcrypto');
  // The contrib modules match what a Debian PostgreSQL offers, so TypeORM's uuid defaults and
  // migrations that CREATE EXTENSION behave the same on both.
  return PGlite.create({ dataDir, extensions: { uuid_ossp, pgcrypto }, ...pgliteOutput });
}

/** @param {HostOptions} options */
async function initOnly(options) {
  const { PGlite } = await import('@electric-sql/pglite');
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({ dataDir: options.dataDir, ...pgliteOutput });
  await db.close();
}

/**
 * Calls `onGone` when the parent can no longer stop us: stdin reaches EOF (the pipe's far end
 * closed, which also happens when the parent is SIGKILLed) or we are re-parented.
 *
 * @param {() => void} onGone
 */
function watchParent(onGone) {
  process.stdin.on('end', onGone);
  process.stdin.on('close', onGone);
  process.stdin.on('error', onGone);
  process.stdin.resume();
  const parentPid = process.ppid;
  setInterval(() => {
    if (process.ppid !== parentPid) onGone();
  }, 1000).unref();
}

/**
 * @param {number} code
 * @param {string} [message]
 * @returns {never}
 */
function exit(code, message) {
  heldLock?.release();
  if (message) report(code === 0 ? 'info' : 'error', message);
  process.exit(code);
}

/**
 * Our own diagnostics carry a level the parent can map onto its logger; PostgreSQL's log lines
 * carry theirs (LOG:, WARNING:, FATAL:).
 *
 * @param {'info' | 'warn' | 'error'} level
 * @param {string} message
 */
function report(level, message) {
  process.stderr.write(`pglite-host [${level}] ${message}\n`);
}

async function main() {
  const startedAt = performance.now();
  const options = readOptions();

  if (options.initOnly) {
    if (options.watchParent) watchParent(() => exit(EXIT_FATAL, 'parent went away during initdb'));
    await initOnly(options);
    exit(0);
  }

  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  heldLock = acquireDataDirLock(options.dataDir, basename(HOST_SCRIPT));

  /** @type {Closable[]} closed in reverse order of opening */
  const resources = [];
  /** @type {string | undefined} */
  let stopReason;
  let started = false;
  let closing = false;

  const closeAndExit = async () => {
    if (closing) return;
    closing = true;
    try {
      for (const resource of resources.reverse()) await resource.stop();
    } catch (error) {
      exit(EXIT_FATAL, `shutdown failed: ${describe(error)}`);
    }
    exit(0);
  };

  /** @param {string} reason */
  const requestStop = (reason) => {
    if (stopReason !== undefined) return;
    stopReason = reason;
    report('info', `shutting down (${reason})`);
    // Committed data is already in the WAL, so a forced exit loses nothing; it only guards
    // against a query that never ends when no parent is left to send SIGKILL.
    setTimeout(() => {
      exit(EXIT_FATAL, `shutdown took longer than ${options.shutdownTimeoutMs} ms; exiting anyway`);
    }, options.shutdownTimeoutMs).unref();
    // While starting, the startup sequence notices the request after its current step.
    if (started) void closeAndExit();
  };

  /** @param {NodeJS.Signals} signal */
  const onSignal = (signal) => {
    if (stopReason !== undefined) {
      exit(EXIT_FATAL, `second signal (${signal}): exiting without a clean shutdown`);
    }
    requestStop(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  if (options.watchParent) watchParent(() => requestStop('parent went away'));

  const created = !hasCluster(options.dataDir);
  if (created) await createCluster(options.dataDir, HOST_SCRIPT);
  if (stopReason !== undefined) return closeAndExit();

  const db = await openDatabase(options.dataDir);
  resources.push({ stop: () => db.close() });
  if (stopReason !== undefined) return closeAndExit();

  const server = new WireServer({
    db,
    host: options.host,
    port: options.port,
    maxConnections: options.maxConnections,
    report,
    onEngineFailure: (error) => exit(EXIT_FATAL, `the database engine failed: ${describe(error)}`),
  });
  const { port } = await server.listen();
  // Closed before the database: every client is dropped and whatever it left open (a protocol
  // cycle, a transaction) is ended, so the shutdown checkpoint sees only committed work.
  resources.push({ stop: () => server.close() });
  if (stopReason !== undefined) return closeAndExit();

  started = true;
  const ready = {
    event: 'ready',
    host: options.host,
    port,
    pid: process.pid,
    created,
    startupMs: Math.round(performance.now() - startedAt),
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

/** @param {unknown} error */
function describe(error) {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

process.on('uncaughtException', (error) => exit(EXIT_FATAL, `fatal: ${describe(error)}`));
process.on('unhandledRejection', (error) => exit(EXIT_FATAL, `fatal: ${describe(error)}`));

main().catch((error) => {
  if (error instanceof DataDirLockedError) exit(EXIT_LOCKED, error.message);
  exit(EXIT_FATAL, `fatal: ${describe(error)}`);
});
