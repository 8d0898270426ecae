/**
 * The inbound half of the Deepgram dialect. Binary frames are audio; text frames are the control
 * messages KeepAlive, Finalize and CloseStream. Two slips Deepgram clients are known for are
 * forgiven: a control message sent as a binary frame is still a control message (not audio), and
 * a 0-byte binary frame is the old way to say CloseStream. Text that is no control message cannot
 * be decoded: Deepgram has no error message, so it ends the stream (1008, DATA-0000).
 */
import { ClientFrame, toBuffer } from '../../../connection/client-frames';

export type ListenMessage =
  | { readonly kind: 'audio'; readonly bytes: Buffer }
  | { readonly kind: 'keep_alive' }
  | { readonly kind: 'finalize' }
  | { readonly kind: 'close_stream' }
  | { readonly kind: 'invalid'; readonly reason: string };

export type ListenFrame = ClientFrame;

const CONTROL: Readonly<Record<string, ListenMessage>> = {
  KeepAlive: { kind: 'keep_alive' },
  Finalize: { kind: 'finalize' },
  CloseStream: { kind: 'close_stream' },
};

/** Longer binary frames are never taken for a control message. */
const MAX_CONTROL_BYTES = 256;
const OPEN_BRACE = 0x7b;

export function parseListenFrame(frame: ListenFrame, isBinary: boolean): ListenMessage {
  const bytes = toBuffer(frame);
  if (isBinary) {
    if (bytes.length === 0) return CONTROL.CloseStream;
    if (bytes.length <= MAX_CONTROL_BYTES && bytes[0] === OPEN_BRACE) {
      const control = controlMessage(bytes.toString('utf8'));
      if (control !== null) return control;
    }
    return { kind: 'audio', bytes };
  }
  return (
    controlMessage(bytes.toString('utf8')) ?? {
      kind: 'invalid',
      reason: 'a text frame must be {"type":"KeepAlive"|"Finalize"|"CloseStream"}; audio goes in binary frames',
    }
  );
}

function controlMessage(text: string): ListenMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && Object.hasOwn(CONTROL, type) ? CONTROL[type] : null;
}
