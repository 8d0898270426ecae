/**
 * The `openai` SDK's `realtime.calls.create({ sdp, session })` body: multipart/form-data with a part
 * `sdp` (the offer) and an optional part `session` (JSON). Two small text parts in a body already
 * bounded by the size limit: read here rather than through a streaming multipart library.
 */
import { AppError } from '../../platform/errors/app-error';

export interface CallForm {
  readonly sdp: string;
  readonly session: Record<string, unknown> | null;
}

const refuse = (message: string, param = 'body'): AppError => new AppError('invalid_parameter', message, { param });

export function readCallForm(body: Buffer, contentType: string): CallForm {
  const boundary = /boundary="?([^";]{1,200})"?/i.exec(contentType)?.[1];
  if (boundary === undefined) throw refuse('The multipart body has no boundary');
  const parts = new Map<string, string>();
  for (const chunk of body.toString('utf8').split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith('--')) break;
    const split = chunk.indexOf('\r\n\r\n');
    if (split < 0) throw refuse('A multipart part has no header end');
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(chunk.slice(0, split))?.[1];
    if (name === undefined) throw refuse('A multipart part has no name');
    if (parts.has(name)) throw refuse(`The multipart part ${name} is given twice`, name);
    parts.set(name, chunk.slice(split + 4).replace(/\r\n$/, ''));
  }
  const sdp = parts.get('sdp');
  if (sdp === undefined) throw refuse('The multipart body has no sdp part', 'sdp');
  const text = parts.get('session');
  if (text === undefined) return { sdp, session: null };
  let session: unknown;
  try {
    session = JSON.parse(text);
  } catch {
    throw refuse('The session part is not JSON', 'session');
  }
  if (typeof session !== 'object' || session === null || Array.isArray(session)) {
    throw refuse('The session part must be a JSON object', 'session');
  }
  return { sdp, session: session as Record<string, unknown> };
}
