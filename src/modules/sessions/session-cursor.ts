import { AppError } from '../../platform/errors/app-error';

/**
 * The position after the last session of a page: its exact creation time (microseconds, UTC, as
 * PostgreSQL prints it) and its id, which breaks ties between sessions created in the same instant.
 */
export interface SessionCursor {
  createdAt: string;
  id: string;
}

const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const SESSION_ID = /^sess_[A-Za-z0-9]{1,64}$/;
const MAX_LENGTH = 256;

/** Opaque to clients: base64url of the sort key. */
export function encodeCursor(cursor: SessionCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

export function decodeCursor(raw: string): SessionCursor {
  const cursor = parse(raw);
  // Only what we issued decodes: any other spelling of the same bytes counts as tampering too.
  if (!cursor || encodeCursor(cursor) !== raw) {
    throw new AppError('invalid_parameter', 'The cursor is not one this API returned', { param: 'cursor' });
  }
  return cursor;
}

function parse(raw: string): SessionCursor | null {
  if (raw.length === 0 || raw.length > MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [createdAt, id] = value as unknown[];
  if (typeof createdAt !== 'string' || !CREATED_AT.test(createdAt) || Number.isNaN(Date.parse(createdAt))) return null;
  if (typeof id !== 'string' || !SESSION_ID.test(id)) return null;
  return { createdAt, id };
}
