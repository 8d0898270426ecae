import { randomBytes } from 'node:crypto';
import { base64ToBytes, base64ToSamples, bytesToBase64, FRAME_SAMPLES, FrameAssembler, toSamples } from './pcm.js';

describe('pcm helpers', () => {
  it('encodes and decodes base64 exactly as Buffer does, for every tail length', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 3839, 3840, 3841]) {
      const bytes = randomBytes(length);
      const text = bytesToBase64(bytes);
      expect(text).toBe(bytes.toString('base64'));
      expect(Buffer.from(base64ToBytes(text))).toEqual(bytes);
    }
  });

  it('rejects characters outside base64', () => {
    expect(() => base64ToBytes('AA*A')).toThrow(SyntaxError);
  });

  it('decodes base64 pcm16 to little-endian samples', () => {
    const samples = base64ToSamples(Buffer.from([0x01, 0x00, 0xff, 0xff, 0x00, 0x80]).toString('base64'));
    expect(Array.from(samples)).toEqual([1, -1, -32768]);
  });

  it('reads pcm16 bytes from an odd offset by copying, and refuses half samples', () => {
    const backing = Buffer.from([9, 0x02, 0x00, 0x03, 0x00]);
    expect(Array.from(toSamples(backing.subarray(1)))).toEqual([2, 3]);
    expect(() => toSamples(new Uint8Array(3))).toThrow(RangeError);
  });

  it('cuts any split of a stream into the same whole 80 ms frames, padding only on flush', () => {
    const stream = Int16Array.from({ length: FRAME_SAMPLES * 3 + 700 }, (_, i) => (i % 2000) - 1000);
    const assembler = new FrameAssembler();
    const frames: Int16Array[] = [];
    for (let at = 0; at < stream.length; at += 1234) frames.push(...assembler.push(stream.subarray(at, at + 1234)));
    expect(frames).toHaveLength(3);
    frames.forEach((frame, n) => expect(frame).toEqual(stream.subarray(n * FRAME_SAMPLES, (n + 1) * FRAME_SAMPLES)));
    const last = assembler.flush()!;
    expect(last).toHaveLength(FRAME_SAMPLES);
    expect(last.subarray(0, 700)).toEqual(stream.subarray(FRAME_SAMPLES * 3));
    expect(last.subarray(700).every((s) => s === 0)).toBe(true);
    expect(assembler.flush()).toBeNull();
  });
});
