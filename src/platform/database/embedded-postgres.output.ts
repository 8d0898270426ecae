/**
 * Reading the PGlite host's output: the ready line on stdout, and log lines on stderr that are
 * forwarded to the caller's logger and remembered for error messages.
 */

export type EmbeddedPostgresLogLevel = 'debug' | 'info' | 'warn' | 'error';

export type EmbeddedPostgresLogger = (level: EmbeddedPostgresLogLevel, message: string) => void;

/** The one line the host prints on stdout once it accepts connections. */
export interface HostReadyLine {
  event: 'ready';
  host: string;
  port: number;
  pid: number;
  /** true when this start created the cluster (first run on the data directory). */
  created: boolean;
  startupMs: number;
}

export function parseReadyLine(line: string): HostReadyLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const ready = value as Partial<Record<keyof HostReadyLine, unknown>>;
  if (
    ready.event !== 'ready' ||
    typeof ready.host !== 'string' ||
    typeof ready.port !== 'number' ||
    typeof ready.pid !== 'number' ||
    typeof ready.created !== 'boolean' ||
    typeof ready.startupMs !== 'number'
  ) {
    return undefined;
  }
  return {
    event: 'ready',
    host: ready.host,
    port: ready.port,
    pid: ready.pid,
    created: ready.created,
    startupMs: ready.startupMs,
  };
}

const HOST_LINE = /^pglite-host \[(info|warn|error)\] /;
const POSTGRES_SEVERITY = /\b(FATAL|PANIC|WARNING): {2}/;

/**
 * Query errors (PostgreSQL's `ERROR:` lines) stay at debug: the client that caused them already
 * got them as exceptions. Only what concerns the server itself is raised above debug.
 */
export function logLevelOf(line: string): EmbeddedPostgresLogLevel {
  const host = HOST_LINE.exec(line);
  if (host) return host[1] as EmbeddedPostgresLogLevel;
  const severity = POSTGRES_SEVERITY.exec(line)?.[1];
  if (severity === 'WARNING') return 'warn';
  if (severity !== undefined) return 'error';
  return 'debug';
}

/** The last lines of a stream, for error messages about a process that failed. */
export class OutputTail {
  private readonly lines: string[] = [];

  constructor(private readonly maxLines = 20) {}

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.maxLines) this.lines.shift();
  }

  toString(): string {
    return this.lines.length === 0 ? '(no output)' : this.lines.join('\n');
  }
}
