export type CapacityVerdict = { available: true } | { available: false; retryAfterMs: number };

/**
 * Asked before a session is admitted (a client secret issued, a socket opened): can this instance take
 * one more stream of the model? A "no" answers 503 capacity_exhausted with the gate's retry_after_ms.
 * The engines module provides it from the engines' free streams.
 */
export interface CapacityGate {
  /** `model`: the session's model when known (each model may be served by its own engine). */
  check(model?: string): CapacityVerdict;
}

export const CAPACITY_GATE = Symbol('CAPACITY_GATE');
