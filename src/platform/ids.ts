import { hash, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';

/**
 * Unbiased base62 from the CSPRNG (nanoid: a bitmask and rejection, bytes drawn from a pool, so one
 * call into OpenSSL serves many ids): token-safe in URLs, headers and WebSocket subprotocols. Ids
 * and secrets are made several times per request.
 */
export const randomBase62: (length: number) => string = customAlphabet(
  '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  24,
);

/** 43 base62 characters carry 256 bits: "at least 32 random bytes". */
const SECRET_CHARS = 43;

export const newApiKey = (): string => `wk_${randomBase62(SECRET_CHARS)}`;
export const newAdminToken = (): string => `wadm_${randomBase62(SECRET_CHARS)}`;
export const newId = (prefix: 'sess' | 'proj' | 'key' | 'cs' | 'evt' | 'req' | 'item' | 'led' | 'rtc'): string =>
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
