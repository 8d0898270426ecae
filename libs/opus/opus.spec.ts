import { describe, expect, it } from '@jest/globals';

import { OpusDecoder, OpusEncoder, opusVersion } from './index';

/** A 440 Hz tone at 48 kHz, `ms` long. */
function tone(ms: number, offset = 0): Int16Array {
  const samples = new Int16Array((48000 * ms) / 1000);
  for (let i = 0; i < samples.length; i++)
    samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * (i + offset)) / 48000));
  return samples;
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

describe('libopus addon', () => {
  it("reports Debian's libopus", () => {
    expect(opusVersion()).toMatch(/^libopus \d+\.\d+/);
  });

  it('round-trips 20 ms frames of speech-band audio at about their level', () => {
    const encoder = new OpusEncoder();
    const decoder = new OpusDecoder();
    const out: Int16Array[] = [];
    for (let f = 0; f < 25; f++) {
      const packet = encoder.encode(tone(20, f * 960));
      expect(packet.length).toBeGreaterThan(0);
      expect(packet.length).toBeLessThan(200); // 32 kbit/s: ~80 bytes a frame
      out.push(decoder.decode(packet));
    }
    expect(out.every((frame) => frame.length === 960)).toBe(true);
    // Past the codec's warm-up the level matches the input's (8000 / √2 ≈ 5657) within a few dB.
    const level = rms(out[20]);
    expect(level).toBeGreaterThan(4000);
    expect(level).toBeLessThan(7500);
  });

  it('conceals a lost frame, and rebuilds it from the next packet when FEC is asked for', () => {
    const encoder = new OpusEncoder();
    const decoder = new OpusDecoder();
    const packets = Array.from({ length: 10 }, (_, f) => encoder.encode(tone(20, f * 960)));
    for (let f = 0; f < 5; f++) decoder.decode(packets[f]);
    expect(decoder.conceal(960).length).toBe(960);
    expect(decoder.conceal(960, packets[7]).length).toBe(960);
  });

  it('refuses a corrupt packet with an error, not a crash', () => {
    const decoder = new OpusDecoder();
    expect(() => decoder.decode(Buffer.from([0xff, 0xff, 0xff]))).toThrow(/opus_decode/);
  });
});
