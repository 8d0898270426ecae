import { describe, expect, it } from '@jest/globals';

import { TurnDetector, TurnDetectorConfig, TurnSignal } from './turn-detector';

const base: TurnDetectorConfig = {
  threshold: 0.5,
  silenceDurationMs: 500,
  minSpeechMs: 96,
  splitPauseMs: 256,
  maxUtteranceMs: 10_000,
  frameMs: 32,
};

/** Runs a probability per 32 ms frame and returns the signals with the frame time they fired at. */
function run(detector: TurnDetector, probabilities: number[]): Array<TurnSignal & { atMs: number }> {
  const out: Array<TurnSignal & { atMs: number }> = [];
  probabilities.forEach((p, k) => detector.frame(p, k * 32).forEach((s) => out.push({ ...s, atMs: k * 32 + 32 })));
  return out;
}

const repeat = (p: number, n: number): number[] => Array.from({ length: n }, () => p);

describe('TurnDetector', () => {
  it('confirms speech after the minimum length and ends the turn after the silence duration', () => {
    const signals = run(new TurnDetector(base), [...repeat(0.05, 5), ...repeat(0.9, 20), ...repeat(0.05, 20)]);
    expect(signals).toEqual([
      { type: 'speech_start', onsetMs: 160, atMs: 256 },
      { type: 'pause', silenceStartMs: 800, atMs: 1056 },
      { type: 'speech_end', speechEndMs: 800, atMs: 1312 },
    ]);
  });

  it('ignores a click shorter than the minimum speech length', () => {
    expect(run(new TurnDetector(base), [0.05, 0.9, 0.9, 0.05, 0.05, ...repeat(0.05, 30)])).toEqual([]);
  });

  it('uses the threshold it is given', () => {
    const strict = new TurnDetector({ ...base, threshold: 0.95 });
    expect(run(strict, [...repeat(0.9, 30), ...repeat(0.0, 30)])).toEqual([]);
  });

  it('keeps a turn through dips above the lower threshold and short gaps', () => {
    const probabilities = [...repeat(0.9, 5), 0.4, 0.4, 0.9, ...repeat(0.1, 5), ...repeat(0.9, 5), ...repeat(0.0, 20)];
    const types = run(new TurnDetector(base), probabilities).map((s) => s.type);
    expect(types).toEqual(['speech_start', 'pause', 'speech_end']);
  });

  it('reports a pause and a resume inside one turn when the gap is between the two limits', () => {
    const probabilities = [...repeat(0.9, 10), ...repeat(0.0, 10), ...repeat(0.9, 10), ...repeat(0.0, 20)];
    const types = run(new TurnDetector(base), probabilities).map((s) => s.type);
    expect(types).toEqual(['speech_start', 'pause', 'resume', 'pause', 'speech_end']);
  });

  it('never ends a turn by itself in manual mode', () => {
    const manual = new TurnDetector({ ...base, silenceDurationMs: null });
    const types = run(manual, [...repeat(0.9, 10), ...repeat(0.0, 200)]).map((s) => s.type);
    expect(types).toEqual(['speech_start', 'pause']);
    expect(manual.speaking).toBe(true);
    expect(manual.inUtterance).toBe(false);
  });

  it('ends the turn even when the silence duration is shorter than the split pause', () => {
    const quick = new TurnDetector({ ...base, silenceDurationMs: 96 });
    const signals = run(quick, [...repeat(0.9, 10), ...repeat(0.0, 5)]);
    expect(signals.map((s) => s.type)).toEqual(['speech_start', 'pause', 'speech_end']);
    expect(signals[2]).toMatchObject({ speechEndMs: 320, atMs: 416 });
  });
});

describe('TurnDetector onsets', () => {
  it('reaches back over the unsure frames just before confident speech', () => {
    const probabilities = [0.0, 0.0, 0.45, 0.3, 0.2, 0.15, 0.9, 0.9, 0.9, ...repeat(0.0, 20)];
    const start = run(new TurnDetector(base), probabilities)[0];
    expect(start).toEqual({ type: 'speech_start', onsetMs: 64, atMs: 288 });
  });

  it('does not reach back across silence or further than 320 ms', () => {
    expect(run(new TurnDetector(base), [0.5, 0.0, 0.2, 0.9, 0.9, 0.9])[0]).toMatchObject({ onsetMs: 64 });
    const long = [...repeat(0.2, 30), 0.9, 0.9, 0.9];
    expect(run(new TurnDetector(base), long)[0]).toMatchObject({ onsetMs: 30 * 32 - 320 });
  });
});

describe('TurnDetector long speech', () => {
  it('cuts an utterance that runs on, at a dip, without ending the turn', () => {
    const detector = new TurnDetector({ ...base, maxUtteranceMs: 640 });
    // 800 ms of confident speech, a dip to 0.4 (still voice), more speech, then silence.
    const signals = run(detector, [...repeat(0.9, 25), 0.4, ...repeat(0.9, 10), ...repeat(0.0, 20)]);
    expect(signals.map((s) => s.type)).toEqual(['speech_start', 'pause', 'resume', 'pause', 'speech_end']);
    expect(signals[1]).toEqual({ type: 'pause', silenceStartMs: 832, atMs: 832 });
    expect(signals[2]).toEqual({ type: 'resume', onsetMs: 832, atMs: 832 });
  });

  it('cuts anywhere at twice the limit when there is no dip', () => {
    const signals = run(new TurnDetector({ ...base, maxUtteranceMs: 320 }), repeat(0.9, 45));
    expect(signals.filter((s) => s.type === 'pause').map((s) => s.atMs)).toEqual([640, 1280]);
  });
});

describe('TurnDetector end of speech from the audio level', () => {
  const LOUD = [0.1, 0.1, 0.1, 0.1];
  /** 50 dB below LOUD: under the tail floor. */
  const QUIET = [1e-6, 1e-6, 1e-6, 1e-6];

  /** Like run(), with each frame's window levels. */
  function runLevels(detector: TurnDetector, frames: Array<[number, number[]]>): Array<TurnSignal & { atMs: number }> {
    const out: Array<TurnSignal & { atMs: number }> = [];
    frames.forEach(([p, levels], k) =>
      detector.frame(p, k * 32, levels).forEach((s) => out.push({ ...s, atMs: k * 32 + 32 })),
    );
    return out;
  }
  const frames = (p: number, levels: number[], n: number): Array<[number, number[]]> =>
    Array.from({ length: n }, () => [p, levels]);

  it('times the silence from where the audio fell quiet while Silero still hears voice', () => {
    // 10 loud frames, then Silero's decaying tail (voiced, 0.6) over quiet audio, then silence.
    const signals = runLevels(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      ...frames(0.6, QUIET, 4),
      ...frames(0.05, QUIET, 20),
    ]);
    expect(signals.map((s) => s.type)).toEqual(['speech_start', 'pause', 'speech_end']);
    expect(signals[2]).toMatchObject({ speechEndMs: 320, atMs: 832 });
  });

  it('places the end of speech at the last loud window of a frame', () => {
    const signals = runLevels(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      [0.9, [0.1, 0.1, 1e-6, 1e-6]],
      ...frames(0.05, QUIET, 20),
    ]);
    expect(signals.find((s) => s.type === 'speech_end')).toMatchObject({ speechEndMs: 10 * 32 + 16 });
  });

  it('keeps the turn while the audio stays above the floor (a noisy room), as Silero alone would', () => {
    const noisy = [1e-4, 1e-4, 1e-4, 1e-4]; // 30 dB below LOUD: above the floor
    const withLevels = runLevels(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      ...frames(0.6, noisy, 4),
      ...frames(0.05, noisy, 20),
    ]);
    const withoutLevels = run(new TurnDetector(base), [...repeat(0.9, 10), ...repeat(0.6, 4), ...repeat(0.05, 20)]);
    expect(withLevels).toEqual(withoutLevels);
    expect(withLevels.find((s) => s.type === 'speech_end')).toMatchObject({ speechEndMs: 14 * 32 });
  });

  it('does not end a turn over a quiet stretch shorter than the silence duration', () => {
    const signals = runLevels(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      ...frames(0.6, QUIET, 8),
      ...frames(0.9, LOUD, 10),
      ...frames(0.05, QUIET, 20),
    ]);
    expect(signals.filter((s) => s.type === 'speech_end')).toHaveLength(1);
  });
});
