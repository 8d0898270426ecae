import { describe, expect, it } from '@jest/globals';

import { SoundOnset } from './sound-onset';

const db = (value: number): number => 10 ** (value / 10);
const frame = (level: number): number[] => [level, level, level, level];

describe('SoundOnset', () => {
  it('hears sound rising out of digital silence, and nothing in the silence itself', () => {
    const onset = new SoundOnset(32);
    expect(onset.frame(frame(0))).toBe(false);
    expect(onset.frame(frame(0))).toBe(false);
    expect(onset.frame([0, 0, db(-30), db(-25)])).toBe(true);
  });

  it('ignores sound quieter than -45 dB however far above the floor it is', () => {
    const onset = new SoundOnset(32);
    onset.frame(frame(0));
    expect(onset.frame(frame(db(-50)))).toBe(false);
  });

  it('needs 20 dB above a noisy room, and takes steady noise for the floor', () => {
    const onset = new SoundOnset(32);
    for (let i = 0; i < 10; i++) expect(onset.frame(frame(db(-40)))).toBe(false);
    expect(onset.frame(frame(db(-25)))).toBe(false); // 15 dB above the room
    expect(onset.frame([db(-40), db(-40), db(-18), db(-18)])).toBe(true);
  });

  it('follows a louder room up slowly: a fan switched on stops counting as sound within seconds', () => {
    const onset = new SoundOnset(32);
    for (let i = 0; i < 10; i++) onset.frame(frame(db(-60)));
    const heard: boolean[] = [];
    for (let i = 0; i < 300; i++) heard.push(onset.frame(frame(db(-35))));
    expect(heard[0]).toBe(true);
    const lastHeard = heard.lastIndexOf(true);
    // The floor rises 5 dB, to 20 dB below the fan, at 3 dB/s: about 1.7 s (52 frames).
    expect(lastHeard).toBeGreaterThan(40);
    expect(lastHeard).toBeLessThan(70);
    expect(heard.slice(lastHeard + 1).every((h) => !h)).toBe(true);
  });

  it('hears nothing without levels', () => {
    expect(new SoundOnset(32).frame([])).toBe(false);
  });
});
