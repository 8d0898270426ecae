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

/**
 * Runs 32 ms frames (a probability, or a probability and the frame's window levels) and returns the
 * signals with the frame time they fired at; without `suspicions`, only the turn's (speech_start,
 * pause, resume, speech_end).
 */
function run(
  detector: TurnDetector,
  frames: Array<number | [number, number[]]>,
  suspicions = false,
): Array<TurnSignal & { atMs: number }> {
  const out: Array<TurnSignal & { atMs: number }> = [];
  frames.forEach((frame, k) => {
    const [p, levels] = typeof frame === 'number' ? [frame, []] : frame;
    detector.frame(p, k * 32, levels).forEach((s) => out.push({ ...s, atMs: k * 32 + 32 }));
  });
  return suspicions ? out : out.filter(isTurnSignal);
}

const isTurnSignal = (s: TurnSignal): boolean => s.type !== 'suspect' && s.type !== 'ruled_out';

const repeat = (p: number, n: number): number[] => Array.from({ length: n }, () => p);
const frames = (p: number, levels: number[], n: number): Array<[number, number[]]> =>
  Array.from({ length: n }, () => [p, levels]);

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

describe('TurnDetector suspected speech', () => {
  it('suspects speech at its first loud frame, before confirming it', () => {
    const signals = run(new TurnDetector(base), [...repeat(0.05, 5), ...repeat(0.9, 5)], true);
    expect(signals).toEqual([
      { type: 'suspect', atMs: 192 },
      { type: 'speech_start', onsetMs: 160, atMs: 256 },
    ]);
  });

  it('rules out a click at the first frame that is not voice, and suspects the next one afresh', () => {
    const types = run(new TurnDetector(base), [0.05, 0.9, 0.9, 0.05, 0.9, 0.05, ...repeat(0.05, 5)], true);
    expect(types.map((s) => [s.type, s.atMs])).toEqual([
      ['suspect', 64],
      ['ruled_out', 128],
      ['suspect', 160],
      ['ruled_out', 192],
    ]);
  });

  it('suspects nothing inside a turn, and rules out what it suspected when the turn is reset', () => {
    const detector = new TurnDetector(base);
    const inTurn = run(detector, [...repeat(0.9, 10), ...repeat(0.0, 10), ...repeat(0.9, 10)], true);
    expect(inTurn.filter((s) => !isTurnSignal(s))).toEqual([{ type: 'suspect', atMs: 32 }]);
    expect(detector.reset()).toEqual([]);
    detector.frame(0.9, 2000);
    expect(detector.reset()).toEqual([{ type: 'ruled_out' }]);
    expect(detector.reset()).toEqual([]);
  });

  const SILENT = [0, 0, 0, 0];
  const SOUND = [1e-3, 1e-3, 1e-3, 1e-3]; // -30 dB
  const typesAndTimes = (signals: Array<TurnSignal & { atMs: number }>) => signals.map((s) => [s.type, s.atMs]);

  it('suspects sudden sound before Silero calls it speech, and keeps one suspicion until confirmed', () => {
    // A breathy onset: sound that Silero does not call speech yet, then speech.
    const audio = [...frames(0, SILENT, 3), ...frames(0.01, SOUND, 3), ...frames(0.95, SOUND, 3)];
    expect(typesAndTimes(run(new TurnDetector(base), audio, true))).toEqual([
      ['suspect', 128],
      ['speech_start', 288],
    ]);
  });

  it('keeps suspecting a sound that goes on while Silero wavers, until it is sure', () => {
    const probabilities = [0.0, 0.6, 0.6, 0.2, 0.3, 0.9, 0.9, 0.9];
    const audio = probabilities.map((p, k): [number, number[]] => [p, k === 0 ? SILENT : SOUND]);
    expect(typesAndTimes(run(new TurnDetector(base), audio, true))).toEqual([
      ['suspect', 64],
      ['speech_start', 256],
    ]);
  });

  it('rules out sound that Silero does not call speech in time, and waits for quiet to suspect again', () => {
    const detector = new TurnDetector(base);
    const audio = [
      ...frames(0.01, SILENT, 1),
      ...frames(0.01, SOUND, 12), // a long noise: ruled out after 256 ms
      ...frames(0.01, SILENT, 1),
      ...frames(0.01, SOUND, 1), // a short one: ruled out when it stops
      ...frames(0.01, SILENT, 1),
      ...frames(0.01, SOUND, 1),
    ];
    expect(typesAndTimes(run(detector, audio, true))).toEqual([
      ['suspect', 64],
      ['ruled_out', 288],
      ['suspect', 480],
      ['ruled_out', 512],
      ['suspect', 544],
    ]);
    expect(detector.reset()).toEqual([{ type: 'ruled_out' }]);
  });

  it('confirms at once, without a suspicion, when one frame is long enough', () => {
    const signals = run(new TurnDetector({ ...base, minSpeechMs: 32 }), [0.05, 0.9], true);
    expect(signals).toEqual([{ type: 'speech_start', onsetMs: 32, atMs: 64 }]);
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

  it('times the silence from where the audio fell quiet while Silero still hears voice', () => {
    // 10 loud frames, then Silero's decaying tail (voiced, 0.6) over quiet audio, then silence.
    const signals = run(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      ...frames(0.6, QUIET, 4),
      ...frames(0.05, QUIET, 20),
    ]);
    expect(signals.map((s) => s.type)).toEqual(['speech_start', 'pause', 'speech_end']);
    expect(signals[2]).toMatchObject({ speechEndMs: 320, atMs: 832 });
  });

  it('places the end of speech at the last loud window of a frame', () => {
    const signals = run(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      [0.9, [0.1, 0.1, 1e-6, 1e-6]],
      ...frames(0.05, QUIET, 20),
    ]);
    expect(signals.find((s) => s.type === 'speech_end')).toMatchObject({ speechEndMs: 10 * 32 + 16 });
  });

  it('counts a soft last sound Silero is unsure of as voice, so the end does not depend on where its frames fall', () => {
    // A final "s": sound 20 dB under the speech, for 96 ms; Silero scores its frames 0.2–0.45, above or
    // below the lower threshold (0.35) depending on where the frames fall on it.
    const soft = [1e-3, 1e-3, 1e-3, 1e-3];
    const endOf = (tail: number[]) =>
      run(new TurnDetector(base), [
        ...frames(0.9, LOUD, 10),
        ...tail.map((p): [number, number[]] => [p, soft]),
        ...frames(0.05, QUIET, 20),
      ]).find((s) => s.type === 'speech_end');
    const ends = [
      [0.3, 0.2, 0.4],
      [0.45, 0.25, 0.2],
      [0.2, 0.3, 0.25],
    ].map(endOf);
    for (const end of ends) expect(end).toMatchObject({ speechEndMs: 13 * 32 });
  });

  it('extends the voice over an unsure sound for at most 128 ms, and never across a quiet frame', () => {
    const soft: [number, number[]] = [0.2, [1e-3, 1e-3, 1e-3, 1e-3]];
    const long = run(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      ...Array(8).fill(soft),
      ...frames(0.05, QUIET, 20),
    ]);
    expect(long.find((s) => s.type === 'speech_end')).toMatchObject({ speechEndMs: 14 * 32 });
    const broken = run(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      [0.2, QUIET],
      soft,
      ...frames(0.05, QUIET, 20),
    ]);
    expect(broken.find((s) => s.type === 'speech_end')).toMatchObject({ speechEndMs: 10 * 32 });
  });

  it('keeps the turn while the audio stays above the floor (a noisy room), as Silero alone would', () => {
    const noisy = [1e-4, 1e-4, 1e-4, 1e-4]; // 30 dB below LOUD: above the floor
    const withLevels = run(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      ...frames(0.6, noisy, 4),
      ...frames(0.05, noisy, 20),
    ]);
    const withoutLevels = run(new TurnDetector(base), [...repeat(0.9, 10), ...repeat(0.6, 4), ...repeat(0.05, 20)]);
    expect(withLevels).toEqual(withoutLevels);
    expect(withLevels.find((s) => s.type === 'speech_end')).toMatchObject({ speechEndMs: 14 * 32 });
  });

  it('does not end a turn over a quiet stretch shorter than the silence duration', () => {
    const signals = run(new TurnDetector(base), [
      ...frames(0.9, LOUD, 10),
      ...frames(0.6, QUIET, 8),
      ...frames(0.9, LOUD, 10),
      ...frames(0.05, QUIET, 20),
    ]);
    expect(signals.filter((s) => s.type === 'speech_end')).toHaveLength(1);
  });
});
