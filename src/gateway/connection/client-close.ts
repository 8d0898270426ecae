/**
 * How a socket's end reads when the client closed it. The contract makes a close handshake the
 * client's own end (`close_requested`) and keeps `connection_lost` for a socket that went away
 * without one. ws reports 1006 when no close frame came, and 1005 when one came without a code:
 * that is what a browser's `close()` and the `ws` client's `close()` with no arguments send
 * (LiveKit's OpenAI plugin closes that way), so it is as deliberate as the SDKs' 1000. 1001 is a
 * browser leaving the page. Any other code is the client reporting a failure of its own.
 */
const CLIENTS_OWN_END: ReadonlySet<number> = new Set([1000, 1001, 1005]);

export function isClientsOwnClose(code: number): boolean {
  return CLIENTS_OWN_END.has(code);
}
