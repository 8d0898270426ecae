/**
 * Sudden sound above the room's noise floor (pure, no I/O): the first hint that the user may have
 * started to speak. Silero is sure of speech only 30–200 ms into it (a breathy "h" or "th" scores
 * near 0 while it is plainly audible, measured on the flite voices), so a response being played is
 * held on this hint; Silero confirms the speech or rules it out.
 *
 * The floor follows the quietest 8 ms window down at once and up slowly (a fan switched on becomes
 * the floor in a few seconds), so steady noise does not count as sound.
 */

/** Sound is this far above the floor... */
const ABOVE_FLOOR_DB = 20;
/** ...and at least this loud (mean square, full scale = 0 dB): quiet rooms hear no clicks. */
const MIN_SOUND_DB = -45;
/** How fast the floor follows a louder room. */
const FLOOR_RISE_DB_PER_S = 3;
/** Digital silence has no floor to be above: this one stands in. */
const LOWEST_FLOOR = 1e-10;

export class SoundOnset {
  private floor = Number.POSITIVE_INFINITY;
  private readonly risePerFrame: number;
  private readonly minSound = 10 ** (MIN_SOUND_DB / 10);
  private readonly aboveFloor = 10 ** (ABOVE_FLOOR_DB / 10);

  constructor(frameMs: number) {
    this.risePerFrame = 10 ** ((FLOOR_RISE_DB_PER_S * frameMs) / 1000 / 10);
  }

  /** Feeds one frame's window levels (mean squares); true when the frame holds sound. */
  frame(levels: readonly number[]): boolean {
    if (levels.length === 0) return false;
    let quietest = Number.POSITIVE_INFINITY;
    let loudest = 0;
    for (const level of levels) {
      if (level < quietest) quietest = level;
      if (level > loudest) loudest = level;
    }
    const floor = this.floor;
    this.floor = Math.max(LOWEST_FLOOR, Math.min(quietest, floor * this.risePerFrame));
    // Judged against the floor before this frame: a frame loud throughout is not its own floor.
    const reference = Number.isFinite(floor) ? floor : this.floor;
    return loudest >= this.minSound && loudest >= reference * this.aboveFloor;
  }
}
