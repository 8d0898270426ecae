import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unbiased base62 from the CSPRNG: token-safe in URLs, headers and WebSocket subprotocols. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62]; // 248 = 4 * 62: drop the biased tail
      if (out.length === length) break;
    }
  }
  return out;
}

/** 43 base62 characters carry 256 bits: "at least 32 random bytes". */
const SECRET_CHARS = 43;

export const newApiKey = (): string => `wk_${randomBase62(SECRET_CHARS)}`;
export const newClientSecret = (): string => `ek_${randomBase62(SECRET_CHARS)}`;
export const newId = (prefix: 'sess' | 'proj' | 'key' | 'cs' | 'evt' | 'req' | 'item'): string =>
  `${prefix}_${randomBase62(24)}`;

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
