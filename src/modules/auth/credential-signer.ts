import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../platform/ids';

/** 43 base62 characters carry 256 bits: "at least 32 random bytes". */
const RANDOM_CHARS = 43;
/** 128 bits of HMAC-SHA256, in base62 (22 characters hold 2^130). */
const TAG_BYTES = 16;
const TAG_CHARS = 22;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type SignedPrefix = 'wk_' | 'ek_';

/**
 * Mints API keys and client secrets that carry an HMAC tag of their own random part, so that one can be
 * told from a forgery in memory: `<prefix><43 random><22 tag>`, base62 throughout (safe in headers,
 * URLs and subprotocols). The tag only decides whether a credential is worth a database statement when
 * its client address is throttled; the database stays the one authority on whether it is valid (it
 * stores only the SHA-256), so a leaked signing key costs that shortcut, never an account.
 */
export class CredentialSigner {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('a credential signing key needs at least 32 bytes');
  }

  mint(prefix: SignedPrefix): string {
    const body = `${prefix}${randomBase62(RANDOM_CHARS)}`;
    return `${body}${this.tag(body)}`;
  }

  /** Whether `value` was minted with this key (constant time in the tag); false for any other shape. */
  minted(value: string): boolean {
    if (value.length !== 3 + RANDOM_CHARS + TAG_CHARS) return false;
    const prefix = value.slice(0, 3);
    if (prefix !== 'wk_' && prefix !== 'ek_') return false;
    const body = value.slice(0, 3 + RANDOM_CHARS);
    const given = Buffer.from(value.slice(body.length), 'latin1');
    const expected = Buffer.from(this.tag(body), 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private tag(body: string): string {
    const mac = createHmac('sha256', this.key).update(body).digest().subarray(0, TAG_BYTES);
    let n = BigInt(`0x${mac.toString('hex')}`);
    let out = '';
    for (let i = 0; i < TAG_CHARS; i++) {
      out = BASE62[Number(n % 62n)] + out;
      n /= 62n;
    }
    return out;
  }
}
