import { createHash } from 'node:crypto';
import { digestsEqual, newApiKey, randomBase62, sha256Hex } from './ids';

describe('ids and secrets', () => {
  it('makes API keys of token-safe characters with at least 256 bits', () => {
    expect(newApiKey()).toMatch(/^wk_[0-9A-Za-z]{43}$/);
    expect(newApiKey()).not.toBe(newApiKey());
  });

  it('draws base62 characters without bias', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(200);
  });

  it('hashes with SHA-256 and compares digests in constant time', () => {
    const key = newApiKey();
    expect(sha256Hex(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(digestsEqual(sha256Hex(key), sha256Hex(key))).toBe(true);
    expect(digestsEqual(sha256Hex(key), sha256Hex(`${key}x`))).toBe(false);
    expect(digestsEqual('ab', 'abcd')).toBe(false);
  });
});
