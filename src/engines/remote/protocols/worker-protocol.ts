/**
 * A worker's wire protocol, reduced to what a remote stream needs: the messages to send at connect,
 * per utterance and per audio chunk, and what a received message means. Pure: no socket here.
 */
export type WorkerEvent =
  /** The worker's greeting (session.created): the opening messages may be sent. */
  | { kind: 'created' }
  | { kind: 'delta'; text: string }
  | { kind: 'done'; text: string }
  /** The worker reported a failure of the stream (an `error` event, a failed transcription). */
  | { kind: 'error'; message: string }
  /** A well-formed event this adapter has no use for (acks, session.updated, …). */
  | { kind: 'other' };

export interface WorkerProtocol {
  /** The URL to connect to, from a configured worker URL. */
  url(worker: URL): URL;
  headers(apiKey: string | undefined): Record<string, string>;
  /** Sent once the worker greeted. */
  opening(): string[];
  /** Sent when an utterance starts (before its audio). */
  begin(): string[];
  append(pcmBase64: string): string;
  /** Sent when an utterance ends: its final transcript is owed. */
  end(): string[];
  /** Throws on a message that is not a JSON object with a string `type` (malformed). */
  decode(text: string): WorkerEvent;
}

export class MalformedMessage extends Error {}

/** A JSON object with a string `type`, or MalformedMessage. */
export function decodeJson(text: string): { type: string; [key: string]: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedMessage('not JSON');
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string')
    throw new MalformedMessage('not an event object');
  return value as { type: string; [key: string]: unknown };
}

export function errorText(event: Record<string, unknown>): string {
  const error = event.error;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    return [code, message].filter((v) => typeof v === 'string').join(': ') || 'error';
  }
  return typeof event.code === 'string' ? event.code : 'error';
}
