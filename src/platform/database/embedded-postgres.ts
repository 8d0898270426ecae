import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import {
  type EmbeddedPostgresLogger,
  type HostReadyLine,
  OutputTail,
  logLevelOf,
  parseReadyLine,
} from './embedded-postgres.output';

export type { EmbeddedPostgresLogLevel, EmbeddedPostgresLogger } from './embedded-postgres.output';

export interface EmbeddedPostgresOptions {
  /** The cluster's folder; created (with initdb) on first use. */
  dataDir: string;
  logger?: EmbeddedPostgresLogger;
  /** How long to wait for the ready line. The first start on a folder runs initdb (about 5 s here). */
  startTimeoutMs?: number;
  /** How long stop() waits for a clean shutdown before SIGKILL. */
  stopTimeoutMs?: number;
  /**
   * Connections the host accepts at once. Every connection shares one backend session, so this
   * only needs to exceed the pool size, with headroom for pools that reconnect or are recreated.
   */
  maxConnections?: number;
}

export interface EmbeddedPostgresExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

type HostProcess = ChildProcessByStdio<Writable, Readable, Readable>;

const HOST_SCRIPT_PATH = join('libs', 'pglite-host', 'host.mjs');
const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 16;
/** After an early exit, how long to wait for the rest of stderr before reporting the failure. */
const OUTPUT_DRAIN_MS = 500;

/**
 * PostgreSQL (PGlite) served from a child process over the wire protocol, reached with the same
 * pg driver, entities and migrations as a real server.
 *
 * Known limits of the embedded server (measured; see the feasibility report): all connections
 * share one backend session and are served one transaction at a time, advisory locks exclude
 * nobody, LISTEN/NOTIFY does not cross connections, statement_timeout and cancel are ignored.
 */
export class EmbeddedPostgres {
  /** Resolves when the host process has exited, for whatever reason. */
  readonly exited: Promise<EmbeddedPostgresExit>;
  private stopping: Promise<void> | undefined;
  private hasExited = false;

  private constructor(
    private readonly child: HostProcess,
    private readonly ready: HostReadyLine,
    exited: Promise<EmbeddedPostgresExit>,
    /** The data directory, as an absolute path. */
    readonly dataDir: string,
    private readonly stopTimeoutMs: number,
    private readonly logger: EmbeddedPostgresLogger,
  ) {
    this.exited = exited.then((exit) => {
      this.hasExited = true;
      if (this.stopping === undefined) {
        logger('error', `embedded PostgreSQL (pid ${ready.pid}) exited unexpectedly (${describeExit(exit)})`);
      }
      return exit;
    });
  }

  /** Spawns the host on `dataDir` and resolves once it accepts connections. */
  static async start(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
    const dataDir = resolve(options.dataDir);
    const logger = options.logger ?? (() => undefined);
    const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;

    // The app's NODE_OPTIONS (--inspect, --require of an APM agent) are meant for the app: in the
    // host they would fight over the inspector port or instrument a process that serves no HTTP.
    // eslint-disable-next-line no-restricted-properties -- the child's environment, not configuration
    const { NODE_OPTIONS: _appNodeOptions, ...env } = process.env;
    const child = spawn(
      process.execPath,
      [findHostScript(), '--data-dir', dataDir, '--max-connections', String(maxConnections), '--watch-parent'],
      {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group: a Ctrl-C in the app's terminal must not take the database
        // away while the app is still draining. Parent death is detected through stdin instead.
        detached: true,
        windowsHide: true,
      },
    );
    // Writing never happens; ending stdin on stop() can hit EPIPE if the host is already gone.
    child.stdin.on('error', () => undefined);

    const stderrTail = new OutputTail();
    const stderrClosed = new Promise<void>((done) => {
      createInterface({ input: child.stderr, crlfDelay: Infinity })
        .on('line', (line) => {
          stderrTail.push(line);
          logger(logLevelOf(line), line);
        })
        .on('close', done);
    });
    const exited = new Promise<EmbeddedPostgresExit>((done) => {
      child.once('exit', (code, signal) => done({ code, signal }));
    });

    const ready = await new Promise<HostReadyLine>((resolveReady, rejectReady) => {
      const fail = (reason: string) => {
        clearTimeout(timer);
        const message =
          `embedded PostgreSQL on ${dataDir} failed to start: ${reason}\n` +
          `host stderr (last lines):\n${stderrTail.toString()}`;
        rejectReady(new Error(message));
      };
      // Reported once the host has exited, not when it is told to: until then it may still hold the
      // data directory's lock, and a retry right away would be refused.
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, startTimeoutMs);

      createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
        const parsed = parseReadyLine(line);
        if (parsed === undefined) {
          logger('debug', line);
          return;
        }
        if (timedOut) return; // too late: it is being killed
        clearTimeout(timer);
        resolveReady(parsed);
      });
      child.once('error', (error) => fail(`could not spawn ${process.execPath}: ${error.message}`));
      void exited.then(async (exit) => {
        await Promise.race([stderrClosed, delay(OUTPUT_DRAIN_MS)]);
        fail(timedOut ? `not ready within ${startTimeoutMs} ms` : `the host exited (${describeExit(exit)})`);
      });
    });

    logger(
      'info',
      `embedded PostgreSQL ready on ${ready.host}:${ready.port} (pid ${ready.pid}, ` +
        `${ready.created ? 'new cluster' : 'existing cluster'} in ${dataDir}, ${ready.startupMs} ms)`,
    );
    return new EmbeddedPostgres(
      child,
      ready,
      exited,
      dataDir,
      options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS,
      logger,
    );
  }

  /** A connection string for pg and TypeORM. The host speaks no TLS and asks for no password. */
  get url(): string {
    return `postgres://postgres@${this.ready.host}:${this.ready.port}/postgres?sslmode=disable`;
  }

  get host(): string {
    return this.ready.host;
  }

  get port(): number {
    return this.ready.port;
  }

  /** The host process's pid. */
  get pid(): number {
    return this.ready.pid;
  }

  /** Whether this start created the cluster. */
  get created(): boolean {
    return this.ready.created;
  }

  /**
   * Shuts the host down cleanly (open client transactions are rolled back, the cluster is
   * checkpointed and the lock released), and SIGKILLs it if that takes longer than
   * `stopTimeoutMs`. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    if (this.hasExited) return;
    this.child.stdin.end();
    // SIGTERM on Windows is an immediate kill, so there the closed stdin alone asks for shutdown.
    if (process.platform !== 'win32') this.child.kill('SIGTERM');
    const exit = await Promise.race([this.exited, delay(this.stopTimeoutMs)]);
    if (exit === undefined) {
      this.logger(
        'warn',
        `embedded PostgreSQL (pid ${this.pid}) did not stop within ${this.stopTimeoutMs} ms; killing it`,
      );
      this.child.kill('SIGKILL');
      await this.exited;
      return;
    }
    if (exit.code !== 0) {
      this.logger('warn', `embedded PostgreSQL (pid ${this.pid}) stopped uncleanly (${describeExit(exit)})`);
    }
  }
}

/**
 * The host is plain ESM run straight from the source tree: from src/database under ts-jest and
 * from dist/src/database after a build, so look upwards for it (a build may also copy it into
 * dist/libs as an asset).
 */
function findHostScript(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, HOST_SCRIPT_PATH);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) {
      throw new Error(`cannot find ${HOST_SCRIPT_PATH} in any folder above ${__dirname}`);
    }
  }
}

function describeExit(exit: EmbeddedPostgresExit): string {
  return exit.signal === null ? `exit code ${exit.code}` : `signal ${exit.signal}`;
}

function delay(ms: number): Promise<undefined> {
  return new Promise((done) => setTimeout(() => done(undefined), ms).unref());
}
