/** Small pieces of the runtime that are not about a session's state. */
import type { EngineStreamConfig } from '../engine/engine.port';
import { OutputPacer, type OutputPacerOptions } from './output-pacer';
import type { ClockPort } from './ports';
import type { RuntimeTuning } from './runtime-options';
import type { Effect } from '../model/session.effects';
import type { SessionConfig } from '../model/session.types';

/**
 * Runs effect lists one after another. A list produced while another runs (re-entrant calls from
 * engine callbacks or the pacer) waits for it, so effects never interleave. A throwing effect is
 * reported and skipped: one bad event must not take the socket handler down.
 */
export class RuntimeCallQueue {
  private executing = false;
  private readonly pending: (readonly Effect[])[] = [];

  constructor(
    private readonly execute: (effect: Effect) => void,
    private readonly onError: (effect: Effect, error: unknown) => void,
  ) {}

  get busy(): boolean {
    return this.executing;
  }

  run(effects: readonly Effect[]): void {
    if (effects.length === 0) return;
    if (this.executing) {
      this.pending.push(effects);
      return;
    }
    this.executing = true;
    try {
      let batch: readonly Effect[] | undefined = effects;
      while (batch !== undefined) {
        for (let i = 0; i < batch.length; i++) {
          try {
            this.execute(batch[i]);
          } catch (error) {
            this.onError(batch[i], error);
          }
        }
        batch = this.pending.shift();
      }
    } finally {
      this.executing = false;
    }
  }
}

/** A session's output pacer, bounded as the runtime's tuning says. */
export function outputPacerFor(
  tuning: RuntimeTuning,
  options: Omit<OutputPacerOptions, 'leadMs' | 'softBacklogBytes' | 'maxQueuedMs'>,
): OutputPacer {
  return new OutputPacer({
    ...options,
    leadMs: tuning.outputLeadMs,
    softBacklogBytes: tuning.softBacklogBytes,
    maxQueuedMs: tuning.maxQueuedOutputMs,
  });
}

export function engineConfigOf(sessionId: string, config: SessionConfig): EngineStreamConfig {
  return {
    sessionId,
    type: config.type,
    model: config.model,
    language: config.language,
    voice: config.voice,
    turnDetection: config.turnDetection,
    ...(config.conversation === true ? { conversation: true } : {}),
  };
}

/** Rejects when `promise` takes longer than `ms`; the timer is cleared either way. */
export function timeLimit<T>(promise: Promise<T>, ms: number, clock: ClockPort): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimer(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clock.clearTimer(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimer(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
