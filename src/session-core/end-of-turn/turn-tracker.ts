/**
 * Follows one session's user turns and decides, from the engine's `turn_progress` reports and the
 * end-of-turn model, when a turn is (eagerly, then surely) over. Pure: audio time only, no clock.
 *
 * - The turn opens on the engine's speech start.
 * - Each progress report updates the confidence. At `eagerEotThreshold` (when set) the turn is
 *   eagerly over once; if the silence then shrinks (the user speaks again) it is resumed, and may
 *   become eager again later. At `eotThreshold`, or after `eotTimeoutMs` of silence whatever the
 *   confidence, the turn ends: the session commits the engine, and the turn is finished when the
 *   engine's final transcript arrives (`finish`), with the trigger that ended it.
 * - An eager turn always precedes the end in eager mode, even when one report crosses both
 *   thresholds, so an agent always gets its head start.
 * - Never later than a timer: a turn whose words sound complete (words, and the last one not a
 *   continuation such as "and", "the", "is") ends once COMPLETE_TURN_CAP_MS of silence has passed
 *   since the last voiced sample, whatever the recogniser terms say; one that stops on a weak
 *   continuation ("I", "can", "really") once WEAK_TURN_CAP_MS has. A hypothesis that keeps changing
 *   may delay the end up to the cap but cannot reset it; only words that plainly want more ("and",
 *   "the", "to"), judged as they are at that audio time, hold the turn past it (to the model's own
 *   point, or the timeout).
 * - Decisions use audio time only (the report's `audioMs`, a VAD frame), so the same audio ends its
 *   turn at the same point however it was batched; the end remembers that point (`endMs`).
 * - `update` fires every UPDATE_EVERY_MS of audio while a turn is open.
 */
import type { EndOfTurnSettings } from '../engine/engine.port';
import { endingOf, endOfTurnProbability, wordsOf } from './end-of-turn.model';

export type TurnTrigger = 'model' | 'manual' | 'timeout';

export type TurnDecision =
  | { readonly kind: 'update' | 'eager' | 'resumed'; readonly itemId: string; readonly progress: TurnProgress }
  /** Commit the engine now: the turn ends with this trigger once its final transcript arrives. */
  | { readonly kind: 'end'; readonly itemId: string; readonly trigger: TurnTrigger; readonly progress: TurnProgress };

export interface TurnProgress {
  readonly startMs: number;
  readonly audioMs: number;
  readonly transcript: string;
  readonly confidence: number;
}

export interface FinishedTurn {
  readonly trigger: TurnTrigger;
  readonly confidence: number;
  /** Whether an eager end was announced and not resumed (the prepared answer stands). */
  readonly eager: boolean;
  /** Audio time the session decided the turn was over (model or timeout), if it did. */
  readonly endMs?: number;
}

export const UPDATE_EVERY_MS = 250;
/**
 * Silence after which a complete-sounding turn ends whatever the model's recogniser terms say: with the
 * VAD frame and an 80 ms audio chunk the end reaches the client 350–460 ms after the speech, before a
 * fixed 500 ms silence timer would have fired.
 */
export const COMPLETE_TURN_CAP_MS = 350;
/**
 * The same for a turn that stops on a weak continuation: where the model itself ends such a turn once
 * its words are final, so that a recogniser still changing its mind cannot hold it longer.
 */
export const WEAK_TURN_CAP_MS = 420;

interface OpenTurn {
  readonly itemId: string;
  readonly startMs: number;
  hypothesis: string;
  changedAtMs: number;
  audioMs: number;
  silenceMs: number;
  lastUpdateMs: number;
  confidence: number;
  eager: boolean;
  ending: TurnTrigger | null;
}

export class TurnTracker {
  private turn: OpenTurn | null = null;
  /** Turns that were ended (commit sent) and wait for their final transcript. */
  private readonly ended = new Map<string, FinishedTurn>();

  constructor(private settings: EndOfTurnSettings | null) {}

  get open(): boolean {
    return this.turn !== null && this.turn.ending === null;
  }

  get eager(): boolean {
    return this.turn?.eager === true;
  }

  configure(settings: EndOfTurnSettings | null): void {
    this.settings = settings;
  }

  started(itemId: string, startMs: number): void {
    this.turn = {
      itemId,
      startMs,
      hypothesis: '',
      changedAtMs: startMs,
      audioMs: startMs,
      silenceMs: 0,
      lastUpdateMs: startMs,
      confidence: 0,
      eager: false,
      ending: null,
    };
  }

  progress(
    itemId: string,
    audioMs: number,
    silenceMs: number,
    hypothesis: string,
    hypothesisMs?: number,
    final?: boolean,
  ): TurnDecision[] {
    const turn = this.turn;
    const settings = this.settings;
    if (turn === null || turn.itemId !== itemId || turn.ending !== null || settings === null) return [];
    if (hypothesis !== turn.hypothesis) {
      turn.hypothesis = hypothesis;
      turn.changedAtMs = audioMs;
    }
    const resumed = silenceMs < turn.silenceMs;
    turn.audioMs = audioMs;
    turn.silenceMs = silenceMs;
    const heardPastVoiceMs = hypothesisMs === undefined ? undefined : hypothesisMs - (audioMs - silenceMs);
    const stableMs = audioMs - turn.changedAtMs;
    turn.confidence = endOfTurnProbability({ silenceMs, hypothesis, stableMs, heardPastVoiceMs, final }).probability;
    const out: TurnDecision[] = [];
    const manualOnly = settings.eotThreshold >= 1;
    if (!manualOnly && silenceMs >= capFor(hypothesis)) {
      turn.confidence = Math.max(turn.confidence, settings.eotThreshold);
    }
    if (resumed && turn.eager) {
      turn.eager = false;
      out.push(this.decision('resumed', turn));
    }
    const eagerAt = settings.eagerEotThreshold;
    const timedOut = silenceMs >= settings.eotTimeoutMs;
    const sure = turn.confidence >= settings.eotThreshold && !manualOnly;
    if (eagerAt !== null && !turn.eager && (turn.confidence >= eagerAt || sure || timedOut) && silenceMs > 0) {
      turn.eager = true;
      out.push(this.decision('eager', turn));
    }
    if (sure || timedOut) {
      out.push(this.end(turn, timedOut && !sure ? 'timeout' : 'model'));
    } else if (audioMs - turn.lastUpdateMs >= UPDATE_EVERY_MS) {
      turn.lastUpdateMs = audioMs;
      out.push(this.decision('update', turn));
    }
    return out;
  }

  /** A manual end (ForceEndTurn, commit): the turn in progress, if any, ends with trigger manual. */
  endNow(): TurnDecision | null {
    const turn = this.turn;
    if (turn === null || turn.ending !== null) return null;
    return this.end(turn, 'manual');
  }

  /**
   * The engine ended the item (its final transcript arrived): how the turn ended. An item the
   * session did not end itself was ended by the engine (its own silence timer: `model`) or by a
   * commit that found no open turn (`manual`).
   */
  finish(itemId: string, committed: boolean): FinishedTurn {
    const ended = this.ended.get(itemId);
    this.ended.delete(itemId);
    if (this.turn?.itemId === itemId) this.turn = null;
    return ended ?? { trigger: committed ? 'manual' : 'model', confidence: 1, eager: false };
  }

  /** clear(): the turn in progress is dropped without an end. */
  reset(): void {
    this.turn = null;
  }

  private end(turn: OpenTurn, trigger: TurnTrigger): TurnDecision {
    turn.ending = trigger;
    const confidence = trigger === 'model' ? turn.confidence : Math.max(turn.confidence, 0);
    const endMs = trigger === 'manual' ? undefined : turn.audioMs;
    this.ended.set(turn.itemId, { trigger, confidence, eager: turn.eager, ...(endMs === undefined ? {} : { endMs }) });
    return { kind: 'end', itemId: turn.itemId, trigger, progress: this.progressOf(turn) };
  }

  private decision(kind: 'update' | 'eager' | 'resumed', turn: OpenTurn): TurnDecision {
    return { kind, itemId: turn.itemId, progress: this.progressOf(turn) };
  }

  private progressOf(turn: OpenTurn): TurnProgress {
    return {
      startMs: turn.startMs,
      audioMs: turn.audioMs,
      transcript: turn.hypothesis,
      confidence: round3(turn.confidence),
    };
  }
}

/** The silence that ends a turn with these words whatever the recogniser terms say (none: Infinity). */
function capFor(hypothesis: string): number {
  switch (endingOf(wordsOf(hypothesis))) {
    case 'complete':
      return COMPLETE_TURN_CAP_MS;
    case 'weak_continuation':
      return WEAK_TURN_CAP_MS;
    default:
      return Number.POSITIVE_INFINITY;
  }
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
