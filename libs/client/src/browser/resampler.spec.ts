import { StreamingResampler } from './resampler.js';

const sine = (rate: number, hz: number, seconds: number, amplitude = 0.5) =>
  Float32Array.from(
    { length: Math.round(rate * seconds) },
    (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate),
  );

const rms = (pcm: Int16Array) => Math.sqrt(pcm.reduce((sum, s) => sum + s * s, 0) / pcm.length);

/** Correlation of the output with a 24 kHz sine of `hz`: its amplitude at that frequency, in pcm16 units. */
function amplitudeAt(pcm: Int16Array, hz: number): number {
  let re = 0;
  let im = 0;
  pcm.forEach((s, i) => {
    re += s * Math.cos((2 * Math.PI * hz * i) / 24_000);
    im += s * Math.sin((2 * Math.PI * hz * i) / 24_000);
  });
  return (2 * Math.hypot(re, im)) / pcm.length;
}

describe('StreamingResampler', () => {
  it.each([48_000, 44_100, 16_000, 24_000])('turns %d Hz into 24 kHz at the right length, chunk by chunk', (rate) => {
    const resampler = new StreamingResampler(rate);
    const input = sine(rate, 440, 2);
    const parts: Int16Array[] = [];
    for (let at = 0; at < input.length; at += 128) parts.push(resampler.process(input.subarray(at, at + 128)));
    const total = parts.reduce((n, p) => n + p.length, 0);
    expect(Math.abs(total - 48_000)).toBeLessThanOrEqual(2);
    const out = Int16Array.from(parts.flatMap((p) => Array.from(p)));
    // A 440 Hz tone stays a 440 Hz tone of the same level (0.5 full scale, after the filter settles).
    expect(amplitudeAt(out.subarray(2400), 440)).toBeGreaterThan(0.47 * 32767);
    expect(amplitudeAt(out.subarray(2400), 440)).toBeLessThan(0.53 * 32767);
  });

  it('removes what 24 kHz cannot carry instead of folding it back into speech', () => {
    const out = new StreamingResampler(48_000).process(sine(48_000, 18_000, 1));
    // Unfiltered, an 18 kHz tone would alias to 6 kHz at full level.
    expect(rms(out.subarray(100))).toBeLessThan(0.05 * 0.5 * 32767);
  });

  it('clips instead of wrapping around', () => {
    const out = new StreamingResampler(24_000).process(Float32Array.from([2, -2, 1, -1]));
    expect(Array.from(out)).toEqual([32767, -32768, 32767, -32768]);
  });
});
