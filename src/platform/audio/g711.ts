/**
 * G.711 (ITU-T, 1972): the phone network's 8 kHz audio, one byte per sample, mu-law (North America,
 * Japan) or A-law (elsewhere). Both are table codecs: decoding is a 256-entry table, encoding a
 * 65536-entry one built once from the standard segment rules, so a 20 ms frame costs 160 lookups.
 * Tables agree with CPython's audioop (lin2ulaw/ulaw2lin, lin2alaw/alaw2lin) on every value.
 */
import { Resampler } from './resampler';

export type G711Law = 'mulaw' | 'alaw';

/** G.711's only rate. */
export const G711_RATE = 8000;

const ULAW_BIAS = 0x84;
const ULAW_CLIP = 8159; // of the 14-bit magnitude
const ULAW_SEGMENT_ENDS = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff];

function ulawEncode(sample: number): number {
  let pcm = sample >> 2; // mu-law codes 14 bits
  let mask = 0xff;
  if (pcm < 0) {
    pcm = -pcm;
    mask = 0x7f;
  }
  if (pcm > ULAW_CLIP) pcm = ULAW_CLIP;
  pcm += ULAW_BIAS >> 2;
  let segment = 0;
  while (segment < 8 && pcm > ULAW_SEGMENT_ENDS[segment]) segment++;
  if (segment >= 8) return 0x7f ^ mask;
  return ((segment << 4) | ((pcm >> (segment + 1)) & 0x0f)) ^ mask;
}

function ulawDecode(code: number): number {
  const u = ~code & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + ULAW_BIAS) << ((u & 0x70) >> 4)) - ULAW_BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

const ALAW_SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

function alawEncode(sample: number): number {
  let pcm = sample >> 3; // A-law codes 13 bits
  let mask = 0xd5;
  if (pcm < 0) {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  let segment = 0;
  while (segment < 8 && pcm > ALAW_SEGMENT_ENDS[segment]) segment++;
  if (segment >= 8) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (pcm >> 1) & 0x0f : (pcm >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

function alawDecode(code: number): number {
  const a = code ^ 0x55;
  const segment = (a & 0x70) >> 4;
  let magnitude = (a & 0x0f) << 4;
  if (segment === 0) magnitude += 8;
  else magnitude = (magnitude + 0x108) << (segment - 1);
  return a & 0x80 ? magnitude : -magnitude;
}

function tables(encode: (sample: number) => number, decode: (code: number) => number) {
  const decoded = new Int16Array(256);
  for (let code = 0; code < 256; code++) decoded[code] = decode(code);
  const encoded = new Uint8Array(65536);
  for (let sample = -32768; sample < 32768; sample++) encoded[sample + 32768] = encode(sample);
  return { decoded, encoded };
}

const TABLES: Record<G711Law, { decoded: Int16Array; encoded: Uint8Array }> = {
  mulaw: tables(ulawEncode, ulawDecode),
  alaw: tables(alawEncode, alawDecode),
};

/** G.711 bytes → pcm16 samples at 8 kHz. */
export function g711Decode(law: G711Law, bytes: Uint8Array): Int16Array {
  const table = TABLES[law].decoded;
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = table[bytes[i]];
  return out;
}

/** pcm16 samples (8 kHz) → G.711 bytes. */
export function g711Encode(law: G711Law, samples: ArrayLike<number>): Buffer {
  const table = TABLES[law].encoded;
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = table[(samples[i] | 0) + 32768];
  return out;
}

/** The code of silence: what a gap is filled with (0xFF in mu-law, 0xD5 in A-law). */
export function g711Silence(law: G711Law): number {
  return TABLES[law].encoded[32768];
}

/**
 * One direction of a G.711 stream against the session's pcm16 at `rate`: decode then resample up
 * (in), or resample down then encode (out). Stateful (the resampler keeps its history), so a
 * session holds one of each.
 */
export class G711Stream {
  private readonly resampler: Resampler;

  constructor(
    private readonly law: G711Law,
    private readonly direction: 'in' | 'out',
    rate: number,
  ) {
    this.resampler = direction === 'in' ? new Resampler(G711_RATE, rate) : new Resampler(rate, G711_RATE);
  }

  /** in: G.711 bytes → pcm16 little-endian at the session's rate; out: the reverse. */
  push(bytes: Buffer): Buffer {
    if (this.direction === 'in') {
      const decoded = g711Decode(this.law, bytes);
      return this.resampler.processPcm16(Buffer.from(decoded.buffer, decoded.byteOffset, decoded.byteLength));
    }
    const down = this.resampler.processPcm16(bytes);
    return g711Encode(this.law, new Int16Array(down.buffer, down.byteOffset, down.length >> 1));
  }
}
