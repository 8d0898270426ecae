/**
 * The session machine's side of end of turn: feeds the engine's turn events to the TurnTracker and
 * turns its decisions into effects (the neutral `turn` events, committing the engine, preparing or
 * dropping a speculative answer). Only sessions whose turn detection has `endOfTurn` get turn events;
 * the others behave as before.
 */
import type { EndOfTurnSettings, EngineEvent } from '../engine/engine.port';
import { NO_EFFECTS, type Effect } from '../model/session.effects';
import type { TurnEventPhase } from '../model/session.events';
import { TurnTracker, type TurnDecision, type TurnProgress } from './turn-tracker';

type TranscriptEvent = Extract<EngineEvent, { type: 'input_transcript' }>;

export class SessionTurns {
  private readonly tracker: TurnTracker;
  /** A manual commit was sent and its item's final transcript has not arrived yet. */
  private committed = false;

  constructor(private settings: EndOfTurnSettings | null) {
    this.tracker = new TurnTracker(settings);
  }

  configure(settings: EndOfTurnSettings | null): void {
    this.settings = settings;
    this.tracker.configure(settings);
  }

  started(itemId: string, startMs: number): void {
    this.tracker.started(itemId, startMs);
  }

  progress(event: Extract<EngineEvent, { type: 'turn_progress' }>): readonly Effect[] {
    const decisions = this.tracker.progress(
      event.itemId,
      event.audioMs,
      event.silenceMs,
      event.hypothesis,
      event.hypothesisMs,
      event.hypothesisFinal,
    );
    if (decisions.length === 0) return NO_EFFECTS;
    const out: Effect[] = [];
    for (const decision of decisions) this.apply(decision, out);
    return out;
  }

  /** A client commit (ForceEndTurn, Finalize): the open turn ends with trigger `manual`. */
  manualCommit(): void {
    this.committed = true;
    this.tracker.endNow();
  }

  cleared(): void {
    this.tracker.reset();
  }

  /** An item's final transcript: the `end` turn event follows it (turn-event sessions only). */
  finished(event: TranscriptEvent): readonly Effect[] {
    const committed = this.committed;
    this.committed = false;
    const finished = this.tracker.finish(event.itemId, committed);
    if (this.settings === null) return NO_EFFECTS;
    const transcript = event.transcript ?? '';
    return [
      this.emit(
        'end',
        event.itemId,
        {
          startMs: event.startMs,
          // Where the session judged the turn over (audio time, the same for the same audio however it
          // was batched); the engine's item may run a chunk further, to the audio it had when committed.
          audioMs: finished.endMs ?? event.endMs,
          transcript,
          confidence: finished.confidence,
        },
        finished.trigger,
        event.words,
      ),
    ];
  }

  private apply(decision: TurnDecision, out: Effect[]): void {
    switch (decision.kind) {
      case 'update':
        out.push(this.emit('update', decision.itemId, decision.progress));
        return;
      case 'eager':
        out.push(this.emit('eager_end', decision.itemId, decision.progress));
        out.push({ kind: 'engine_prepare', transcript: decision.progress.transcript });
        return;
      case 'resumed':
        out.push(this.emit('resumed', decision.itemId, decision.progress));
        out.push({ kind: 'engine_discard_prepared' });
        return;
      case 'end':
        out.push({ kind: 'engine_commit' });
        return;
    }
  }

  private emit(
    phase: TurnEventPhase,
    itemId: string,
    progress: TurnProgress,
    trigger?: 'model' | 'manual' | 'timeout',
    words?: TranscriptEvent['words'],
  ): Effect {
    return {
      kind: 'emit',
      event: {
        type: 'turn',
        phase,
        itemId,
        startMs: progress.startMs,
        endMs: Math.max(progress.startMs, progress.audioMs),
        transcript: progress.transcript,
        confidence: progress.confidence,
        ...(trigger === undefined ? {} : { trigger }),
        ...(words === undefined ? {} : { words }),
      },
    };
  }
}
