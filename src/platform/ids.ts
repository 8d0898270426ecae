import { hash, randomFillSync, timingSafeEqual } from 'node:crypto';

const BASE62 = Buffer.from('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 'latin1');

/**
 * CSPRNG bytes drawn 4 KiB at a time, each byte handed out once (as Node's own randomUUID() caches):
 * one call into OpenSSL per ~100 ids instead of one per id, which showed in the profile of secret
 * creation. Ids and secrets are made several times per request.
 */
const entropy = Buffer.alloc(4096);
let used = entropy.length;

function randomByte(): number {
  if (used === entropy.length) {
    randomFillSync(entropy);
    used = 0;
  }
  return entropy[used++];
}

/** Unbiased base62 from the CSPRNG: token-safe in URLs, headers and WebSocket subprotocols. */
export function randomBase62(length: number): string {
  const chars = Buffer.allocUnsafe(length);
  for (let i = 0; i < length;) {
    const byte = randomByte();
    if (byte < 248) chars[i++] = BASE62[byte % 62]; // 248 = 4 * 62: drop the biased tail
  }
  return chars.toString('latin1');
}

/** 43 base62 characters carry 256 bits: "at least 32 random bytes". */
const SECRET_CHARS = 43;

export const newApiKey = (): string => `wk_${randomBase62(SECRET_CHARS)}`;
export const newClientSecret = (): string => `ek_${randomBase62(SECRET_CHARS)}`;
export const newAdminToken = (): string => `wadm_${randomBase62(SECRET_CHARS)}`;
export const newId = (prefix: 'sess' | 'proj' | 'key' | 'cs' | 'evt' | 'req' | 'item' | 'led'): string =>
  `${prefix}_${randomBase62(24)}`;

/** One-shot: a third of createHash().update().digest()'s cost, and every request hashes its key and secret. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
