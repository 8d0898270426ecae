import type { RawData, WebSocket } from 'ws';

/**
 * Bytes one side may have handed to the other's socket and not yet seen written out before the relay
 * stops reading the sender (its TCP window then pushes back on it); reading resumes below the low mark.
 */
export const RELAY_HIGH_WATER_BYTES = 256 * 1024;
export const RELAY_LOW_WATER_BYTES = 64 * 1024;

/** Codes a close frame may carry (RFC 6455 7.4): 1005, 1006 and 1015 are only ever reported. */
function sendable(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

export interface RelayEnds {
  /** The sideband's client, on this instance. */
  readonly client: WebSocket;
  /** The same sideband, opened on the instance that holds the call (paused until the relay starts). */
  readonly owner: WebSocket;
}

/**
 * Pipes a relayed sideband both ways, frame for frame (text stays text), until either side closes;
 * then closes the other with the same code and reason. A side that vanishes without a close frame
 * closes the other as a failure: the client sees 1011 `call_owner_lost` when the owner's connection
 * drops, the owner sees 1001 when the client's does. Bounded: a side whose frames the other cannot
 * take (a slow reader) is paused past RELAY_HIGH_WATER_BYTES in flight, never buffered without end.
 * Resolves when both sockets are closed.
 */
export function relaySideband({ client, owner }: RelayEnds): Promise<void> {
  pipe(client, owner);
  pipe(owner, client);
  const closed = (ws: WebSocket) =>
    ws.readyState === ws.CLOSED ? Promise.resolve() : new Promise<void>((resolve) => ws.once('close', () => resolve()));
  client.on('close', (code, reason) => closeWith(owner, code, reason, 1001, 'client_lost'));
  owner.on('close', (code, reason) => closeWith(client, code, reason, 1011, 'call_owner_lost'));
  // Errors end in a close event, handled above; unhandled they would throw.
  client.on('error', () => undefined);
  owner.on('error', () => undefined);
  if (owner.isPaused) owner.resume();
  if (owner.readyState !== owner.OPEN) closeWith(client, 1006, Buffer.alloc(0), 1011, 'call_owner_lost');
  return Promise.all([closed(client), closed(owner)]).then(() => undefined);
}

/** from → to, pausing `from` while `to` has too much of it in flight. */
function pipe(from: WebSocket, to: WebSocket): void {
  let inFlight = 0;
  from.on('message', (data: RawData, isBinary: boolean) => {
    if (to.readyState !== to.OPEN) return;
    const size = byteLength(data);
    inFlight += size;
    to.send(data, { binary: isBinary }, () => {
      inFlight -= size;
      if (inFlight <= RELAY_LOW_WATER_BYTES && from.isPaused && from.readyState === from.OPEN) from.resume();
    });
    if (inFlight > RELAY_HIGH_WATER_BYTES && !from.isPaused) from.pause();
  });
}

function closeWith(ws: WebSocket, code: number, reason: Buffer, lostCode: number, lostReason: string): void {
  if (ws.readyState === ws.CLOSING || ws.readyState === ws.CLOSED) return;
  // A paused socket would never read the peer's answering close frame.
  if (ws.isPaused) ws.resume();
  if (code === 1006 || code === 1015) ws.close(lostCode, lostReason);
  else if (sendable(code)) ws.close(code, reason);
  else ws.close(1000);
}

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}
