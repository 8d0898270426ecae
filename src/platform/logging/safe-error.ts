/**
 * How an error is written to the log. pino's standard serializer copies every enumerable property,
 * and a failed query carries its SQL text and bound parameters (TypeORM's QueryFailedError), and pg's
 * own error its `detail` (`Key (key_hash)=(…) already exists`): API key and secret hashes, metadata,
 * anything a request sent. A database error is logged by its statement's name and SQLSTATE code
 * only; any other error by its type, message, code and stack. Its `cause` chain is kept, the same way.
 */
export interface LoggedError {
  type: string;
  message: string;
  code?: string;
  statement?: string;
  stack?: string;
  cause?: LoggedError;
}

const MAX_CAUSES = 3;

export function serializeError(error: unknown, depth = 0): LoggedError | unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? { type: 'string', message: error } : error;
  const record = error as Error & Record<string, unknown>;
  const driver = (record.driverError ?? null) as (Error & Record<string, unknown>) | null;
  const sql = typeof record.query === 'string' ? record.query : undefined;
  const code = stringOrUndefined(record.code) ?? stringOrUndefined(driver?.code);
  const fromDatabase = sql !== undefined || driver !== null;
  const message = fromDatabase ? withoutQuotedValue(error.message) : error.message;
  const logged: LoggedError = { type: error.constructor?.name ?? error.name, message };
  if (code) logged.code = code;
  if (sql !== undefined) logged.statement = statementName(sql);
  if (error.stack) logged.stack = fromDatabase ? error.stack.replace(error.message, message) : error.stack;
  if (error.cause !== undefined && depth < MAX_CAUSES) {
    logged.cause = serializeError(error.cause, depth + 1) as LoggedError;
  }
  return logged;
}

/**
 * PostgreSQL quotes an offending value at the end of some messages (`invalid input syntax for type
 * bigint: "…"`); that value is a parameter. Identifiers inside the message (`relation "x"`) stay.
 */
const withoutQuotedValue = (message: string): string => message.replace(/: ".*"$/s, ': "[value]"');

const stringOrUndefined = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;

/**
 * A short name for a statement: the function it calls (`continuum_admit_sessions`), else its verb and
 * first table (`INSERT sessions`). Enough to find it in the code; no values, whatever the SQL holds.
 */
export function statementName(sql: string): string {
  const fn = /\b(continuum_\w+)\s*\(/i.exec(sql);
  if (fn) return fn[1];
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:FROM|INTO|UPDATE)\s+"?([A-Za-z_][\w]*)"?/i.exec(sql)?.[1];
  return table ? `${verb} ${table}` : verb;
}
