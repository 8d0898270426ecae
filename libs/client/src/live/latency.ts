import type { LiveSessionEvent } from './live-session.js';
import { FRAME_MS } from './pcm.js';

export interface LatencyFigures {
  /** From sending the audio a turn's first recognised word ends in, to its first transcript delta. */
  firstPartialMs: number | null;
  /** From sending the end of speech (`speech_stopped`, else the last word's end) to the final transcript. */
  finalAfterSpeechEndMs: number | null;
  /** From sending the end of the user's speech to the first audio of the answer. */
  firstAnswerAudioMs: number | null;
}

/**
 * Latency as the user feels it, on this client's clock: the server stamps events with positions on
 * the input timeline (ms of audio sent), and this meter remembers when each 80 ms of input was sent.
 */
export class LatencyMeter {
  readonly latest: LatencyFigures = { firstPartialMs: null, finalAfterSpeechEndMs: null, firstAnswerAudioMs: null };
  private readonly sentAt: number[] = [];
  private readonly partialSeen = new Set<string>();
  private readonly speechEnd = new Map<string, number>();
  private answerAfter: number | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Call after sending input, with the input timeline's new end (`session.inputMs`). */
  inputSent(inputEndMs: number): void {
    const at = this.now();
    while (this.sentAt.length * FRAME_MS < inputEndMs) this.sentAt.push(at);
  }

  /** Feeds a server event; returns true when a figure changed. */
  observe(event: LiveSessionEvent): boolean {
    if (event.type === 'session.input_transcript.delta') {
      let changed = false;
      if (!this.partialSeen.has(event.item_id)) {
        this.partialSeen.add(event.item_id);
        changed = this.set('firstPartialMs', event.end_ms);
      }
      if (event.done)
        changed = this.set('finalAfterSpeechEndMs', this.speechEnd.get(event.item_id) ?? event.end_ms) || changed;
      return changed;
    }
    if (event.type === 'session.turn.event' && event.event.type === 'speech_stopped') {
      this.speechEnd.set(event.event.item_id, event.event.end_ms);
      this.answerAfter = event.event.end_ms;
      return false;
    }
    if (
      (event.type === 'session.output_audio.delta' || event.type === 'session.output_audio.binary') &&
      this.answerAfter !== null
    ) {
      const changed = this.set('firstAnswerAudioMs', this.answerAfter);
      this.answerAfter = null;
      return changed;
    }
    return false;
  }

  private set(figure: keyof LatencyFigures, inputMs: number): boolean {
    if (!this.sentAt.length) return false;
    const sent = this.sentAt[Math.min(Math.max(0, Math.floor(inputMs / FRAME_MS)), this.sentAt.length - 1)];
    this.latest[figure] = Math.max(0, Math.round(this.now() - sent));
    return true;
  }
}
