/**
 * Which response is being produced, which are still playing, and barge-in. A response is
 * "done" for the client when its audio has played out (the pacer reports it), not when the
 * engine finished producing it; a response cut by barge-in is done at once, and whatever the
 * engine still sends for it is dropped.
 */
import type { EngineEvent } from '../engine/engine.port';
import { NO_EFFECTS, type Effect } from '../model/session.effects';
import type { SessionDescriptor } from '../model/session.types';

export type ResponseEvent = Extract<
  EngineEvent,
  { type: 'response_started' | 'output_transcript' | 'output_audio' | 'response_done' }
>;

/** Whether speech over a response is barge-in: yes unless the session said otherwise (interrupt_response). */
export function interruptsResponses(session: SessionDescriptor | null): boolean {
  return session?.config.interruptResponse !== false;
}

const HOLD: readonly Effect[] = Object.freeze([{ kind: 'output_hold' as const }]);
const RELEASE: readonly Effect[] = Object.freeze([{ kind: 'output_release' as const }]);

export class OutputTurns {
  private current: string | null = null;
  private cut: string | null = null;
  /** Output is held: the engine suspects the user has started to speak. */
  private held = false;
  /** Responses the engine finished whose audio is still queued: id → interrupted by the engine. */
  private readonly draining = new Map<string, boolean>();
  responses = 0;
  interruptions = 0;

  /** True while a response is produced or played: speech now is barge-in. */
  get active(): boolean {
    return this.current !== null || this.draining.size > 0;
  }

  onEngine(event: ResponseEvent): readonly Effect[] {
    switch (event.type) {
      case 'response_started': {
        if (event.itemId === this.cut) return NO_EFFECTS;
        const out: Effect[] = [];
        // An engine that starts anew without finishing the last one: let the last one play out.
        if (this.current !== null) this.end(this.current, false, out);
        this.current = event.itemId;
        this.responses++;
        out.push({ kind: 'emit', event: { type: 'response_started', itemId: event.itemId } });
        return out;
      }
      case 'output_audio':
        return event.itemId === this.current
          ? [{ kind: 'output_audio', itemId: event.itemId, pcm: event.pcm }]
          : NO_EFFECTS;
      case 'output_transcript': {
        if (event.itemId !== this.current) return NO_EFFECTS;
        const { type: _type, ...fields } = event;
        return [{ kind: 'output_transcript', ...fields }];
      }
      case 'response_done': {
        if (event.itemId !== this.current) return NO_EFFECTS;
        const out: Effect[] = [];
        this.end(event.itemId, event.interrupted, out);
        return out;
      }
    }
  }

  drained(itemId: string): readonly Effect[] {
    const interrupted = this.draining.get(itemId);
    if (interrupted === undefined) return NO_EFFECTS;
    this.draining.delete(itemId);
    return [{ kind: 'emit', event: { type: 'response_done', itemId, interrupted } }];
  }

  /** Speech suspected: hold what is playing until the engine confirms the speech or rules it out. */
  hold(): readonly Effect[] {
    if (!this.active) return NO_EFFECTS;
    this.held = true;
    return HOLD;
  }

  release(): readonly Effect[] {
    if (!this.held) return NO_EFFECTS;
    this.held = false;
    return RELEASE;
  }

  /** Barge-in: stop the engine and the pacer, and report every cut response as done. */
  interrupt(out: Effect[]): void {
    this.held = false; // the flush ends the hold too
    if (!this.active) return;
    this.interruptions++;
    out.push({ kind: 'engine_interrupt' }, { kind: 'output_flush' });
    for (const itemId of this.draining.keys()) {
      out.push({ kind: 'emit', event: { type: 'response_done', itemId, interrupted: true } });
    }
    this.draining.clear();
    if (this.current !== null) {
      out.push({ kind: 'emit', event: { type: 'response_done', itemId: this.current, interrupted: true } });
      this.cut = this.current;
      this.current = null;
    }
  }

  private end(itemId: string, interrupted: boolean, out: Effect[]): void {
    this.current = null;
    this.draining.set(itemId, interrupted);
    out.push({ kind: 'output_end', itemId });
  }
}
