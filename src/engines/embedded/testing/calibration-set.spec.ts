import { buildCalibrationSet, calibrationSpecs, findGap } from './calibration-set';
import { concatAudio, silence } from './speech-fixtures';

describe('end-of-turn calibration set', () => {
  it('lists at least 100 labelled turns in several voices, each sentence in one split only', () => {
    const specs = calibrationSpecs();
    expect(specs.length).toBeGreaterThanOrEqual(100);
    expect(new Set(specs.map((s) => s.voice.split(':')[0]))).toEqual(new Set(['flite', 'espeak-ng']));
    expect(new Set(specs.map((s) => s.voice)).size).toBeGreaterThanOrEqual(5);
    const splitOf = new Map<number, string>();
    for (const spec of specs) {
      expect(splitOf.get(spec.sentence) ?? spec.split).toBe(spec.split);
      splitOf.set(spec.sentence, spec.split);
      expect(spec.text.includes('|')).toBe(spec.kind === 'paused');
    }
    expect(specs.filter((s) => s.split === 'held_out').length).toBeGreaterThan(specs.length / 2);
  });

  it('finds the phrase break nearest the comma, not a stop closure', () => {
    const tone = (ms: number) => Int16Array.from({ length: ms * 24 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));
    const speech = concatAudio([tone(500), silence(40), tone(300), silence(150), tone(600), silence(200), tone(100)]);
    // The 200 ms gap is longer but far from where the comma falls (about 0.45 of the speech).
    expect(findGap(speech, 0.45)).toEqual({ startMs: 840, endMs: 990 });
  });

  it('speaks every turn and labels its pause inside the speech', async () => {
    const turns = await buildCalibrationSet();
    for (const turn of turns) {
      expect(turn.speechEndMs - turn.speechStartMs).toBeGreaterThan(600);
      for (const pause of turn.pauses) {
        expect(pause.startMs).toBeGreaterThan(turn.speechStartMs + 200);
        expect(pause.endMs).toBeLessThan(turn.speechEndMs - 200);
        expect(pause.endMs - pause.startMs).toBe(turn.pauseMs);
      }
      expect(turn.pauses.length).toBe(turn.kind === 'paused' ? 1 : 0);
    }
  }, 120_000);
});
