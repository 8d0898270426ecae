import fc from 'fast-check';
import { FRAME_BYTES } from '../engine/engine.port';
import { InputFramer } from './input-framer';

describe('InputFramer', () => {
  it('returns whole frames and carries the rest', () => {
    const framer = new InputFramer();
    const out: Buffer[] = [];
    framer.append(Buffer.alloc(FRAME_BYTES * 2 + 10), out);
    expect(out.map((f) => f.length)).toEqual([FRAME_BYTES, FRAME_BYTES]);
    expect(framer.carried).toBe(10);
    expect(framer.takeRemainder()?.length).toBe(10);
    expect(framer.takeRemainder()).toBeNull();
  });

  it('does not reuse a carry buffer it handed out (engines may keep frames)', () => {
    const framer = new InputFramer();
    const out: Buffer[] = [];
    framer.append(Buffer.alloc(100, 1), out);
    framer.append(Buffer.alloc(FRAME_BYTES, 2), out);
    const first = Buffer.from(out[0]);
    framer.append(Buffer.alloc(FRAME_BYTES, 3), out);
    expect(out[0]).toEqual(first);
    expect(out[0][0]).toBe(1);
    expect(out[0][100]).toBe(2);
    expect(out[1][0]).toBe(2);
    expect(out[1][100]).toBe(3);
  });

  it('preserves every byte in order whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9000 }), { maxLength: 20 }), (sizes) => {
        const framer = new InputFramer();
        const out: Buffer[] = [];
        let counter = 0;
        const input: Buffer[] = sizes.map((size) => Buffer.from(Array.from({ length: size }, () => counter++ & 0xff)));
        for (const chunk of input) framer.append(chunk, out);
        const tail = framer.takeRemainder();
        const all = Buffer.concat(input);
        expect(Buffer.concat(tail === null ? out : [...out, tail])).toEqual(all);
        expect(out.every((f) => f.length === FRAME_BYTES)).toBe(true);
      }),
    );
  });
});
