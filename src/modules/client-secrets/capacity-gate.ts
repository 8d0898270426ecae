import { Injectable } from '@nestjs/common';

export type CapacityVerdict = { available: true } | { available: false; retryAfterMs: number };

/**
 * Asked before a client secret is issued: can this deployment take one more session stream? A "no"
 * answers 503 capacity_exhausted with the gate's retry_after_ms.
 */
export interface CapacityGate {
  /** `model`: the session's model when known (each model may be served by its own engine). */
  check(model?: string): CapacityVerdict;
}

export const CAPACITY_GATE = Symbol('CAPACITY_GATE');

/**
 * The default behind CAPACITY_GATE: always available until a speech engine registers its own gate,
 * e.g. `gate.register({ check: () => engine.hasCapacity() ? { available: true } : { available: false,
 * retryAfterMs: 1000 } })` from the engine module's onModuleInit.
 */
@Injectable()
export class RegisteredCapacityGate implements CapacityGate {
  private delegate: CapacityGate | null = null;

  register(gate: CapacityGate): void {
    this.delegate = gate;
  }

  check(model?: string): CapacityVerdict {
    return this.delegate ? this.delegate.check(model) : { available: true };
  }
}
