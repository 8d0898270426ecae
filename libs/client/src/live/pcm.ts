/** The only audio the service takes and gives: pcm16 little-endian, mono, 24 kHz, in 80 ms frames. */
export const SAMPLE_RATE = 24_000;
export const FRAME_MS = 80;
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000; // 1920
export const FRAME_BYTES = FRAME_SAMPLES * 2; // 3840

/** pcm16 given as samples or as little-endian bytes (a Node Buffer is a Uint8Array). */
export type Pcm16 = Int16Array | Uint8Array | ArrayBuffer;

export function toSamples(pcm: Pcm16): Int16Array {
  if (pcm instanceof Int16Array) return pcm;
  const bytes = pcm instanceof ArrayBuffer ? new Uint8Array(pcm) : pcm;
  if (bytes.byteLength % 2) throw new RangeError('pcm16 must be a whole number of 2-byte samples');
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  return new Int16Array(new Uint8Array(bytes).buffer); // unaligned: copy (Buffer's slice would not)
}

export function samplesToBytes(samples: Int16Array): Uint8Array {
  return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
}

/**
 * Cuts a stream of samples into whole 80 ms frames: the service warns (`partial_frame`) about appends
 * that are not whole frames, so the remainder waits for the next call (or `flush`, padded with silence).
 */
export class FrameAssembler {
  private pending = new Int16Array(FRAME_SAMPLES);
  private filled = 0;

  push(samples: Int16Array): Int16Array[] {
    const frames: Int16Array[] = [];
    let at = 0;
    while (at < samples.length) {
      const take = Math.min(FRAME_SAMPLES - this.filled, samples.length - at);
      this.pending.set(samples.subarray(at, at + take), this.filled);
      this.filled += take;
      at += take;
      if (this.filled === FRAME_SAMPLES) {
        frames.push(this.pending);
        this.pending = new Int16Array(FRAME_SAMPLES);
        this.filled = 0;
      }
    }
    return frames;
  }

  /** The partial frame, padded with silence to a whole one; null when nothing waits. */
  flush(): Int16Array | null {
    if (this.filled === 0) return null;
    const frame = this.pending; // the tail is already zero
    this.pending = new Int16Array(FRAME_SAMPLES);
    this.filled = 0;
    return frame;
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_INDEX[B64.charCodeAt(i)] = i;

/** Base64 without Buffer or btoa, so the same code runs in browsers, workers and Node. */
export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += B64[n >> 18] + B64[(n >> 12) & 63] + '==';
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + '=';
  }
  return out;
}

export function base64ToBytes(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let at = 0;
  for (let i = 0; i < clean.length; i++) {
    const value = B64_INDEX[clean.charCodeAt(i) & 127];
    if (value < 0) throw new SyntaxError('invalid base64');
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (buffer >> bits) & 255;
    }
  }
  return out.subarray(0, at);
}

/** Decodes base64 pcm16 into samples (copied, so the view is aligned). */
export function base64ToSamples(text: string): Int16Array {
  const bytes = base64ToBytes(text);
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
}
