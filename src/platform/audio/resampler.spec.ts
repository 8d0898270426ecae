import { describe, expect, it } from '@jest/globals';

import { Resampler, resampleClip, pcm16FromBuffer, toInt16 } from './resampler';

function tone(frequency: number, rate: number, seconds: number, amplitude = 10_000): Float64Array {
  const out = new Float64Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

/** RMS over the middle of the signal, away from the filter's start-up. */
function rms(samples: ArrayLike<number>): number {
  const from = Math.floor(samples.length / 4);
  const to = Math.floor((samples.length * 3) / 4);
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / (to - from));
}

/** Amplitude of `frequency` in the signal (single-bin DFT). */
function toneLevel(samples: ArrayLike<number>, frequency: number, rate: number): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < samples.length; i++) {
    re += samples[i] * Math.cos((2 * Math.PI * frequency * i) / rate);
    im += samples[i] * Math.sin((2 * Math.PI * frequency * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / samples.length;
}

describe('Resampler', () => {
  it('keeps a passband tone at its level and frequency (24k → 16k)', () => {
    const out = new Resampler(24_000, 16_000).process(tone(1000, 24_000, 0.5));
    expect(out.length).toBeGreaterThan(7_990);
    expect(rms(out) / (10_000 / Math.SQRT2)).toBeCloseTo(1, 2);
    expect(toneLevel(out.subarray(1000), 1000, 16_000)).toBeGreaterThan(9_900);
  });

  it('removes content above the new Nyquist frequency instead of aliasing it', () => {
    // 10 kHz at 24 kHz would alias to 6 kHz at 16 kHz.
    const out = new Resampler(24_000, 16_000).process(tone(10_000, 24_000, 0.5));
    expect(toneLevel(out.subarray(1000), 6_000, 16_000)).toBeLessThan(10); // > 60 dB down
  });

  it('upsamples 16k → 24k without imaging', () => {
    const out = new Resampler(16_000, 24_000).process(tone(3000, 16_000, 0.5));
    expect(toneLevel(out.subarray(1000), 3000, 24_000)).toBeGreaterThan(9_900);
    // The 3 kHz image at 16 - 3 = 13 kHz folds to 11 kHz at a 24 kHz rate.
    expect(toneLevel(out.subarray(1000), 11_000, 24_000)).toBeLessThan(10);
  });

  it('gives the same samples whether fed at once or in uneven blocks', () => {
    const input = tone(440, 24_000, 0.3);
    const whole = new Resampler(24_000, 16_000).process(input);
    const streamed = new Resampler(24_000, 16_000);
    const parts: number[] = [];
    for (let i = 0, step = 1; i < input.length; i += step, step = ((step * 7) % 1913) + 1) {
      parts.push(...streamed.process(input.subarray(i, i + step)));
    }
    expect(parts.length).toBe(whole.length);
    for (let i = 0; i < whole.length; i++) expect(parts[i]).toBeCloseTo(whole[i], 6);
  });

  it('resampleClip keeps length and timing of a clip', () => {
    const clip = new Float64Array(16_000);
    clip[8_000] = 20_000; // an impulse at 0.5 s
    const out = resampleClip(clip, 16_000, 24_000);
    expect(out.length).toBe(24_000);
    let peak = 0;
    for (let i = 1; i < out.length; i++) if (Math.abs(out[i]) > Math.abs(out[peak])) peak = i;
    expect(Math.abs(peak - 12_000)).toBeLessThanOrEqual(1);
  });
});

describe('pcm16 helpers', () => {
  it('reads little-endian samples and clamps when converting back', () => {
    const buffer = Buffer.alloc(6);
    buffer.writeInt16LE(-32768, 0);
    buffer.writeInt16LE(1234, 2);
    buffer.writeInt16LE(32767, 4);
    expect(Array.from(pcm16FromBuffer(buffer))).toEqual([-32768, 1234, 32767]);
    expect(Array.from(toInt16([40_000, -40_000, 1.4]))).toEqual([32767, -32768, 1]);
  });
});
