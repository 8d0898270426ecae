/**
 * Turns per-frame speech probabilities into speech events on the stream timeline (pure, no I/O).
 *
 * - Speech starts at a frame at or above `threshold` and is confirmed once `minSpeechMs` of frames
 *   above the lower `threshold - 0.15` follow without a break (short clicks are ignored).
 * - Until then speech is only suspected (`suspect`, then `speech_start` or `ruled_out`), from the
 *   first loud frame or, sooner, from sudden sound above the noise floor (sound-onset.ts) that
 *   Silero has yet to call speech: a response being played is held at once, so that a barge-in is
 *   not as late as the confirmation. Sound that Silero does not call speech within
 *   SOUND_SUSPICION_MS is ruled out, and suspected again only after a quiet frame.
 * - While speaking, a frame counts as voice when at or above the lower threshold (hysteresis, as
 *   Silero recommends). Silence is the time since the last voiced frame.
 * - `pause` fires after `splitPauseMs` of silence: the recogniser closes its utterance there, which
 *   keeps utterances short (ps_end_utt grows with length) and the final ready before the turn ends.
 * - `speech_end` fires after `silenceDurationMs` of silence; with null the turn never ends by
 *   itself (manual turns end on commit()).
 * - `resume` is speech after a pause within the same turn.
 * - Speech that runs on for `maxUtteranceMs` without a pause is cut (`pause` + `resume` at the same
 *   instant) at the next frame below the threshold, or anywhere at twice that length, so no
 *   recogniser utterance grows long.
 * - Onsets reach back over the frames just before, while they stay above a low floor: Silero is
 *   often unsure about a soft first sound ("th", "f") and only confident a word later.
 * - Offsets reach forward the same way: a soft last sound (a final "s" or "f") that Silero is unsure
 *   of (between ONSET_FLOOR and the lower threshold) still counts as voice where the audio is above the
 *   turn's tail floor, for up to UNSURE_TAIL_MS after its last voiced frame. Silero's frames fall on
 *   such a sound at a phase that depends on the lead-in, and left to them the voice's end moved by up to
 *   100 ms with it (the same audio must end its turn at the same point however it arrives).
 * - Silence is also timed from where the audio itself fell quiet: Silero's probability decays for
 *   about 90 ms (p50; 150–190 ms p95, measured) after the last sound, so its voiced frames alone
 *   would end every turn that much later than the client's silence duration. Audio more than
 *   TAIL_FLOOR_DB below the loudest 8 ms of the turn is silence even in a frame Silero still calls
 *   voice. Where the noise floor is within that distance of the speech (a noisy room), nothing
 *   changes: no window falls below it.
 */
import { SoundOnset } from './sound-onset';

export interface TurnDetectorConfig {
  threshold: number;
  silenceDurationMs: number | null;
  minSpeechMs: number;
  splitPauseMs: number;
  maxUtteranceMs: number;
  frameMs: number;
}

export type TurnSignal =
  | { type: 'suspect' }
  | { type: 'ruled_out' }
  /** Confirmed speech; `onsetMs` is the start of its first frame. */
  | { type: 'speech_start'; onsetMs: number }
  | { type: 'pause'; silenceStartMs: number }
  | { type: 'resume'; onsetMs: number }
  /** `speechEndMs` is the end of the last voiced frame. */
  | { type: 'speech_end'; speechEndMs: number };

/** Probability above which frames just before an onset still count as its start. */
const ONSET_FLOOR = 0.1;
/** How far an onset may reach back. */
const ONSET_LOOKBACK_MS = 320;
/** How long after its last voiced frame an unsure soft sound may still extend the voice. */
const UNSURE_TAIL_MS = 128;
/** Below the turn's loudest window by this much, audio is the silence after speech. */
const TAIL_FLOOR_DB = -40;
const TAIL_FLOOR = 10 ** (TAIL_FLOOR_DB / 10);
/** Silero called the breathy onsets of the flite voices speech within 192 ms of their sound; a frame more. */
const SOUND_SUSPICION_MS = 256;

type State =
  | { kind: 'idle' }
  /** `loudMs`: the first frame above the threshold, from which the minimum length counts. */
  | { kind: 'candidate'; onsetMs: number; loudMs: number }
  | {
      kind: 'speaking';
      lastVoiceEndMs: number;
      paused: boolean;
      utteranceStartMs: number;
      /** End of the last frame Silero called voice; an unsure tail may follow it (null once broken). */
      voicedFrameEndMs: number | null;
    };

export class TurnDetector {
  private state: State = { kind: 'idle' };
  private readonly lowThreshold: number;
  /** Recent frames, newest last, for reaching back to an onset. */
  private recent: Array<{ startMs: number; probability: number }> = [];
  /** Loudest window (mean square) of the voiced frames of the current turn. */
  private peakLevel = 0;
  private readonly sound: SoundOnset;
  /** Start of the sound suspected (while idle) to be speech; null when none is. */
  private soundSinceMs: number | null = null;
  /** A sound was ruled out: the next suspicion waits for a quiet frame. */
  private awaitingQuiet = false;

  constructor(private readonly config: TurnDetectorConfig) {
    this.lowThreshold = Math.max(0.01, config.threshold - 0.15);
    this.sound = new SoundOnset(config.frameMs);
  }

  get speaking(): boolean {
    return this.state.kind === 'speaking';
  }

  /** End of the last voiced audio of the turn in progress (ms), null when no turn is. */
  get lastVoiceEndMs(): number | null {
    return this.state.kind === 'speaking' ? this.state.lastVoiceEndMs : null;
  }

  /** True while speaking and not in a pause: audio now is part of an utterance. */
  get inUtterance(): boolean {
    return this.state.kind === 'speaking' && !this.state.paused;
  }

  /**
   * Feeds the probability of the frame starting at `startMs`, and the loudness of its equal windows
   * (mean squares; see silero-vad.ts) when known; returns what it caused.
   */
  frame(probability: number, startMs: number, levels: number[] = []): TurnSignal[] {
    const endMs = startMs + this.config.frameMs;
    const loud = probability >= this.config.threshold;
    const voiced = probability >= this.lowThreshold;
    const state = this.state;
    const before = this.recent;
    this.recent = [...before.slice(1 - ONSET_LOOKBACK_MS / this.config.frameMs), { startMs, probability }];
    if (state.kind === 'idle') this.peakLevel = 0;
    if (voiced) this.peakLevel = Math.max(this.peakLevel, ...levels);

    const sound = this.sound.frame(levels);
    if (state.kind === 'idle') {
      if (!loud) return this.suspectSound(sound, startMs, endMs);
      const signals = this.candidate(this.reachBack(before, startMs), startMs, endMs);
      const suspected = this.soundSinceMs !== null;
      this.soundSinceMs = null;
      return suspected ? signals.filter((s) => s.type !== 'suspect') : signals;
    }

    if (state.kind === 'candidate') {
      if (!voiced) {
        this.state = { kind: 'idle' };
        if (!sound) return [{ type: 'ruled_out' }];
        // Silero wavers over a sound that goes on (a soft vowel): still suspected, as sound.
        this.soundSinceMs = startMs;
        return [];
      }
      return this.confirmIfLongEnough(state, endMs);
    }

    // speaking
    if (state.paused) {
      if (!loud) return this.silence(state, endMs);
      const onsetMs = this.reachBack(before, startMs);
      this.state = {
        kind: 'speaking',
        lastVoiceEndMs: endMs,
        paused: false,
        utteranceStartMs: onsetMs,
        voicedFrameEndMs: endMs,
      };
      return [{ type: 'resume', onsetMs }];
    }
    const length = endMs - state.utteranceStartMs;
    if (length >= 2 * this.config.maxUtteranceMs || (!loud && length >= this.config.maxUtteranceMs)) {
      if (voiced) state.lastVoiceEndMs = endMs;
      state.utteranceStartMs = endMs;
      return [
        { type: 'pause', silenceStartMs: endMs },
        { type: 'resume', onsetMs: endMs },
      ];
    }
    if (voiced) state.voicedFrameEndMs = endMs;
    const voiceEndMs =
      voiced || this.unsureTail(state, probability, startMs, levels) ? this.soundEnd(startMs, levels) : null;
    if (voiceEndMs !== null) {
      state.lastVoiceEndMs = voiceEndMs;
      return [];
    }
    state.voicedFrameEndMs = null;
    return this.silence(state, endMs);
  }

  /** Forgets the current turn (clear(), or a commit that ends it), and any speech suspected. */
  reset(): TurnSignal[] {
    const suspected = this.state.kind === 'candidate' || this.soundSinceMs !== null;
    this.state = { kind: 'idle' };
    this.soundSinceMs = null;
    return suspected ? [{ type: 'ruled_out' }] : [];
  }

  /** Sound while idle, before Silero calls it speech. */
  private suspectSound(sound: boolean, startMs: number, endMs: number): TurnSignal[] {
    if (!sound) {
      this.awaitingQuiet = false;
      if (this.soundSinceMs === null) return [];
      this.soundSinceMs = null;
      return [{ type: 'ruled_out' }];
    }
    if (this.soundSinceMs === null) {
      if (this.awaitingQuiet) return [];
      this.soundSinceMs = startMs;
      return [{ type: 'suspect' }];
    }
    if (endMs - this.soundSinceMs < SOUND_SUSPICION_MS) return [];
    this.soundSinceMs = null;
    this.awaitingQuiet = true;
    return [{ type: 'ruled_out' }];
  }

  /** Whether a frame Silero is unsure of still belongs to the voice before it (see the header). */
  private unsureTail(
    state: { voicedFrameEndMs: number | null },
    probability: number,
    startMs: number,
    levels: number[],
  ): boolean {
    return (
      levels.length > 0 &&
      probability >= ONSET_FLOOR &&
      state.voicedFrameEndMs !== null &&
      startMs < state.voicedFrameEndMs + UNSURE_TAIL_MS
    );
  }

  /** End of the frame's last window above the turn's tail floor; null when all of it is below. */
  private soundEnd(startMs: number, levels: number[]): number | null {
    if (levels.length === 0) return startMs + this.config.frameMs;
    const floor = this.peakLevel * TAIL_FLOOR;
    for (let i = levels.length - 1; i >= 0; i--) {
      if (levels[i] > floor) return startMs + ((i + 1) * this.config.frameMs) / levels.length;
    }
    return null;
  }

  /** The earliest start of an unbroken run of frames above the floor that ends at `onsetMs`. */
  private reachBack(before: Array<{ startMs: number; probability: number }>, onsetMs: number): number {
    let onset = onsetMs;
    for (let i = before.length - 1; i >= 0; i--) {
      const frame = before[i];
      if (frame.probability < ONSET_FLOOR || frame.startMs !== onset - this.config.frameMs) break;
      onset = frame.startMs;
    }
    return onset;
  }

  private candidate(onsetMs: number, loudMs: number, endMs: number): TurnSignal[] {
    const candidate = { kind: 'candidate' as const, onsetMs, loudMs };
    this.state = candidate;
    const confirmed = this.confirmIfLongEnough(candidate, endMs);
    return confirmed.length > 0 ? confirmed : [{ type: 'suspect' }];
  }

  private confirmIfLongEnough(candidate: { onsetMs: number; loudMs: number }, endMs: number): TurnSignal[] {
    if (endMs - candidate.loudMs < this.config.minSpeechMs) return [];
    this.state = {
      kind: 'speaking',
      lastVoiceEndMs: endMs,
      paused: false,
      utteranceStartMs: candidate.onsetMs,
      voicedFrameEndMs: endMs,
    };
    return [{ type: 'speech_start', onsetMs: candidate.onsetMs }];
  }

  private silence(state: { lastVoiceEndMs: number; paused: boolean }, endMs: number): TurnSignal[] {
    const silentMs = endMs - state.lastVoiceEndMs;
    const signals: TurnSignal[] = [];
    if (!state.paused && silentMs >= this.config.splitPauseMs) {
      state.paused = true;
      signals.push({ type: 'pause', silenceStartMs: state.lastVoiceEndMs });
    }
    const limit = this.config.silenceDurationMs;
    if (limit !== null && silentMs >= limit) {
      if (!state.paused) signals.push({ type: 'pause', silenceStartMs: state.lastVoiceEndMs });
      signals.push({ type: 'speech_end', speechEndMs: state.lastVoiceEndMs });
      this.state = { kind: 'idle' };
    }
    return signals;
  }
}
