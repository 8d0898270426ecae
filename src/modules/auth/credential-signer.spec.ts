import { CredentialSigner } from './credential-signer';

describe('CredentialSigner', () => {
  const signer = new CredentialSigner(Buffer.alloc(32, 7));

  it('mints base62 keys and secrets of 256 random bits that it recognises', () => {
    const key = signer.mint('wk_');
    const secret = signer.mint('ek_');
    expect(key).toMatch(/^wk_[0-9A-Za-z]{65}$/);
    expect(secret).toMatch(/^ek_[0-9A-Za-z]{65}$/);
    expect(signer.minted(key)).toBe(true);
    expect(signer.minted(secret)).toBe(true);
    expect(signer.mint('ek_')).not.toBe(secret);
  });

  it('refuses a changed character, another key, another prefix and any other shape', () => {
    const secret = signer.mint('ek_');
    const last = secret.at(-1) === 'A' ? 'B' : 'A';
    expect(signer.minted(`${secret.slice(0, -1)}${last}`)).toBe(false);
    expect(signer.minted(`${secret.slice(0, 10)}${secret[10] === 'A' ? 'B' : 'A'}${secret.slice(11)}`)).toBe(false);
    expect(signer.minted(`wk_${secret.slice(3)}`)).toBe(false);
    expect(new CredentialSigner(Buffer.alloc(32, 8)).minted(secret)).toBe(false);
    expect(signer.minted(secret.slice(0, -1))).toBe(false);
    expect(signer.minted(`wk_${'a'.repeat(43)}`)).toBe(false);
    expect(signer.minted('')).toBe(false);
  });

  it('needs a key of at least 32 bytes', () => {
    expect(() => new CredentialSigner(Buffer.alloc(31))).toThrow(/32 bytes/);
  });
});
