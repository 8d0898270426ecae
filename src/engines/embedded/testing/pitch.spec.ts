import { buildCalibrationSet } from './calibration-set';
import { estimatePitch, semitones } from './pitch';

const RATE = 24_000;
const WINDOW = 40 * 24; // 40 ms, as the prosody probe analyses

function tone(hz: number, samples = WINDOW, amplitude = 8000): Int16Array {
  return Int16Array.from({ length: samples }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / RATE)),
  );
}

/** A glottal-like pulse train: strong harmonics, the kind of signal that tempts a tracker an octave off. */
function pulses(hz: number, samples = WINDOW): Int16Array {
  const period = RATE / hz;
  return Int16Array.from({ length: samples }, (_, i) => {
    const phase = (i % period) / period;
    return Math.round(12000 * Math.exp(-phase * 8) - 1500);
  });
}

/** A linear chirp from `fromHz` to `toHz` over `ms`. */
function chirp(fromHz: number, toHz: number, ms: number): Int16Array {
  const n = ms * 24;
  let phase = 0;
  return Int16Array.from({ length: n }, (_, i) => {
    const hz = fromHz + ((toHz - fromHz) * i) / n;
    phase += (2 * Math.PI * hz) / RATE;
    return Math.round(8000 * Math.sin(phase));
  });
}

function seededNoise(samples: number): Int16Array {
  let state = 12345;
  return Int16Array.from({ length: samples }, () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return (state / 0x7fffffff - 0.5) * 16000;
  });
}

describe('estimatePitch (YIN)', () => {
  it.each([70, 100, 150, 220, 330, 440])('finds a %i Hz tone within 1%%', (hz) => {
    const estimate = estimatePitch(tone(hz), { sampleRate: RATE });
    expect(estimate.f0Hz).not.toBeNull();
    expect(Math.abs((estimate.f0Hz as number) / hz - 1)).toBeLessThan(0.01);
    expect(estimate.aperiodicity).toBeLessThan(0.1);
  });

  it.each([90, 120, 200])('finds the fundamental of a %i Hz pulse train, not an octave', (hz) => {
    const f0 = estimatePitch(pulses(hz), { sampleRate: RATE }).f0Hz as number;
    expect(Math.abs(semitones(f0, hz))).toBeLessThan(0.3);
  });

  it('calls silence and white noise unvoiced', () => {
    expect(estimatePitch(new Int16Array(WINDOW), { sampleRate: RATE }).f0Hz).toBeNull();
    const noise = estimatePitch(seededNoise(WINDOW), { sampleRate: RATE });
    expect(noise.f0Hz).toBeNull();
    expect(noise.aperiodicity).toBeGreaterThan(0.2);
  });

  it('follows a rising and a falling sweep', () => {
    for (const [from, to] of [
      [110, 180],
      [220, 140],
    ]) {
      const sweep = chirp(from, to, 500);
      const track: number[] = [];
      for (let end = WINDOW; end <= sweep.length; end += 10 * 24) {
        track.push(estimatePitch(sweep.subarray(end - WINDOW, end), { sampleRate: RATE }).f0Hz as number);
      }
      expect(track.every((f0) => f0 !== null)).toBe(true);
      for (let i = 1; i < track.length; i++) expect(Math.sign(track[i] - track[i - 1])).toBe(Math.sign(to - from));
      // Each window's estimate is the sweep's frequency near the window's middle.
      expect(track[0]).toBeCloseTo(from + ((to - from) * 20) / 500, -1);
      expect(track[track.length - 1]).toBeCloseTo(to - ((to - from) * 20) / 500, -1);
    }
  });

  it('works at 16 kHz too (no halving)', () => {
    const samples = Int16Array.from({ length: 640 }, (_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 130 * i) / 16_000)),
    );
    expect(estimatePitch(samples, { sampleRate: 16_000 }).f0Hz).toBeCloseTo(130, 0);
  });

  it('tracks synthesised speech smoothly, in each voice’s register, with a falling sentence end', async () => {
    const ids = new Set(['s00-flite-awb', 's00-flite-slt', 's00-espeak-ng-en-us']);
    const turns = await buildCalibrationSet({ filter: (spec) => ids.has(spec.id), trailMs: 100 });
    expect(turns.length).toBeGreaterThanOrEqual(2);
    for (const turn of turns) {
      const voiced: Array<{ t: number; f0: number }> = [];
      for (let t = turn.speechStartMs + 40; t <= turn.speechEndMs; t += 10) {
        const f0 = estimatePitch(turn.pcm.subarray((t - 40) * 24, t * 24), { sampleRate: RATE }).f0Hz;
        if (f0 !== null) voiced.push({ t, f0 });
      }
      const f0s = voiced.map((v) => v.f0).sort((a, b) => a - b);
      const median = f0s[Math.floor(f0s.length / 2)];
      const [low, high] = turn.voice === 'flite:slt' ? [140, 260] : [70, 170];
      expect(median).toBeGreaterThan(low);
      expect(median).toBeLessThan(high);
      expect(voiced.length).toBeGreaterThan(((turn.speechEndMs - turn.speechStartMs) / 10) * 0.3);
      // No octave jumps between neighbouring voiced windows.
      for (let i = 1; i < voiced.length; i++) {
        if (voiced[i].t - voiced[i - 1].t > 10) continue;
        expect(Math.abs(semitones(voiced[i].f0, voiced[i - 1].f0))).toBeLessThan(6);
      }
      // A statement ends low in the speaker's range.
      const last = voiced.slice(-5).map((v) => v.f0);
      expect(semitones(last[Math.floor(last.length / 2)], median)).toBeLessThan(-0.5);
    }
  }, 60_000);
});
