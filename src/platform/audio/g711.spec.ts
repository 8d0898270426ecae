import { createHash } from 'node:crypto';
import { g711Decode, g711Encode, g711Silence, G711Stream, type G711Law } from './g711';

const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);
const everySample = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
const everyCode = Uint8Array.from({ length: 256 }, (_, i) => i);

// Digests of CPython audioop's tables (ulaw2lin/alaw2lin over 0..255, lin2ulaw/lin2alaw over every sample).
const AUDIOOP: Record<G711Law, { decode: string; encode: string }> = {
  mulaw: { decode: '3dab54339e520bb2', encode: '81d633c9e6972a18' },
  alaw: { decode: 'e04788d110e58ff8', encode: '38488f6fd710f468' },
};

describe('G.711', () => {
  it.each(['mulaw', 'alaw'] as const)('%s agrees with audioop on every code and every sample', (law) => {
    const decoded = g711Decode(law, everyCode);
    expect(digest(new Uint8Array(decoded.buffer))).toBe(AUDIOOP[law].decode);
    expect(digest(g711Encode(law, everySample))).toBe(AUDIOOP[law].encode);
  });

  it('decodes the codes every implementation agrees on', () => {
    expect(Array.from(g711Decode('mulaw', Uint8Array.of(0x00, 0x7f, 0x80, 0xff)))).toEqual([-32124, 0, 32124, 0]);
    expect(Array.from(g711Decode('alaw', Uint8Array.of(0xd5, 0x55)))).toEqual([8, -8]);
    expect(g711Silence('mulaw')).toBe(0xff);
    expect(g711Silence('alaw')).toBe(0xd5);
  });

  it.each(['mulaw', 'alaw'] as const)(
    '%s round trip stays within the quantisation step (under 1/16 of the value)',
    (law) => {
      const back = g711Decode(law, g711Encode(law, everySample));
      for (let i = 0; i < everySample.length; i += 7) {
        const x = everySample[i];
        expect(Math.abs(back[i] - x)).toBeLessThanOrEqual(Math.max(1100, Math.abs(x) / 16) + 16);
        if (Math.abs(x) > 64) expect(Math.sign(back[i])).toBe(Math.sign(x));
      }
    },
  );

  it('streams a 1 kHz tone 8 kHz → 24 kHz → 8 kHz with its length and level intact', () => {
    const tone = Int16Array.from({ length: 8000 }, (_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 8000)),
    );
    const up = new G711Stream('mulaw', 'in', 24000);
    const down = new G711Stream('mulaw', 'out', 24000);
    const wire = g711Encode('mulaw', tone);
    const pcmChunks: Buffer[] = [];
    const backChunks: Buffer[] = [];
    for (let at = 0; at < wire.length; at += 160) {
      const pcm = up.push(wire.subarray(at, at + 160));
      pcmChunks.push(pcm);
      backChunks.push(down.push(pcm));
    }
    const pcm = Buffer.concat(pcmChunks);
    expect(Math.abs(pcm.length / 2 - 24000)).toBeLessThanOrEqual(2);
    const back = g711Decode('mulaw', Buffer.concat(backChunks));
    expect(Math.abs(back.length - 8000)).toBeLessThanOrEqual(2);
    const rms = (s: ArrayLike<number>, from: number) => {
      let sum = 0;
      for (let i = from; i < s.length; i++) sum += s[i] * s[i];
      return Math.sqrt(sum / (s.length - from));
    };
    expect(rms(back, 100) / rms(tone, 100)).toBeGreaterThan(0.9);
    expect(rms(back, 100) / rms(tone, 100)).toBeLessThan(1.1);
  });
});
