/**
 * What a carrier's media-stream protocol is to the call bridge: its inbound messages as neutral
 * events, and its outbound ones (audio, a mark, a clear). Twilio's is the reference; carriers that
 * copy it (SignalWire, Fonoster) or differ in field names only (Telnyx, Exotel) are one such adapter
 * each; the bridge (call-bridge.ts) is the same for all.
 */
export type CarrierEvent =
  | { kind: 'connected' }
  /** `token`: the client secret the app put in the stream's custom parameters. */
  | { kind: 'start'; streamId: string; callId: string; token: string | null; encoding: string; sampleRate: number }
  /** `payload`: base64 G.711 mu-law at 8 kHz, as it came. */
  | { kind: 'media'; payload: string }
  | { kind: 'dtmf'; digit: string }
  | { kind: 'mark'; name: string }
  | { kind: 'stop' }
  /** A frame the protocol does not allow; the call ends with `reason`. */
  | { kind: 'invalid'; reason: string };

export interface CarrierProtocol {
  /** The carrier's name: the session's `transport` and the logs'. */
  readonly name: string;
  parse(frame: string): CarrierEvent;
  media(streamId: string, payload: string): string;
  mark(streamId: string, name: string): string;
  clear(streamId: string): string;
}
