/**
 * The one transcript shape and word type. Engines report transcripts in this shape (the engine
 * port's events are made of it), the session passes them on as events and effects, and each
 * dialect renders them in its own words.
 */

/** A recognised word: integer ms on the input-audio timeline, confidence 0..1. */
export interface TranscriptWord {
  word: string;
  startMs: number;
  endMs: number;
  confidence: number;
}

/** A piece of one item's transcript. */
export interface TranscriptDelta {
  readonly itemId: string;
  /** Text added since the previous delta of this item (may be empty on the final one). */
  readonly delta: string;
  /** Integer ms, endMs >= startMs; the timeline depends on who reports it (see each use). */
  readonly startMs: number;
  readonly endMs: number;
  /** true once the item's transcript is final; `transcript` is then the whole text. */
  readonly done: boolean;
  readonly transcript?: string;
}
