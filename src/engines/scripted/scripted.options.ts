/** Knobs of the deterministic test engine; every default is what the protocol tests assume. */
export interface ScriptedEngineOptions {
  /** Streams open at once; open() beyond it throws EngineCapacityError. */
  readonly maxStreams: number;
  /** A frame louder than this RMS (int16 scale) is speech. */
  readonly speechRms: number;
  /** One transcript word per this much speech. */
  readonly wordEveryMs: number;
  /** Words of every user turn, in order (cycled when a turn is longer). */
  readonly words: readonly string[];
  /** The answer of a live session to each user turn. */
  readonly reply: {
    readonly text: string;
    readonly toneHz: number;
    readonly durationMs: number;
    /**
     * Output audio produced at once when the turn ends; the rest follows one chunk of this size
     * per pushed input frame (an input-driven, faster-than-real-time voice that can be
     * interrupted). The default produces the whole reply at once.
     */
    readonly chunkMs: number;
  };
}

export const DEFAULT_SCRIPTED_OPTIONS: ScriptedEngineOptions = {
  maxStreams: 1000,
  speechRms: 500,
  wordEveryMs: 400,
  words: ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'],
  reply: { text: 'I heard you loud and clear', toneHz: 440, durationMs: 960, chunkMs: 960 },
};
