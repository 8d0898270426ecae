/**
 * Realtime's `turn_detection.idle_timeout_ms`, pure (times are passed in): after a response's audio
 * has played out, a user who says nothing for the timeout is prompted to go on. The count starts when
 * a response is done (its `response.done` goes out once its audio has played), when the user's speech
 * ends without an answer following (noise, `create_response: false`), and when the timeout is set or
 * changed while nothing goes on; speech and responses stop it. It fires once per silence: the next
 * response's end (the prompt's own included) or speech's end starts it again.
 */
import type { ConversationEffect, ConversationModel } from './conversation.model';
import type { ConversationEvent, ConversationItem } from './conversation.types';

/** The stretch of input audio, in ms from its start, during which no speech was heard. */
export interface SilentSegment {
  audioStartMs: number;
  audioEndMs: number;
}

export class IdleTimeout {
  private timeoutMs: number | null = null;
  /** When the silence began, on the wall clock and in the input audio; null: not counting. */
  private since: { atMs: number; audioMs: number } | null = null;
  private speaking = false;
  private responding = false;

  get ms(): number | null {
    return this.timeoutMs;
  }

  /** When the timeout fires if nothing happens meanwhile; null: it will not. */
  get deadlineMs(): number | null {
    return this.timeoutMs === null || this.since === null ? null : this.since.atMs + this.timeoutMs;
  }

  configure(timeoutMs: number | null, nowMs: number, audioMs: number): void {
    if (timeoutMs === this.timeoutMs) return;
    this.timeoutMs = timeoutMs;
    // A new timeout counts from now: one turned on long after the last answer must not fire at once.
    if (!this.speaking && !this.responding) this.since = { atMs: nowMs, audioMs };
  }

  /** Every event the conversation sends, in order. */
  observe(event: ConversationEvent, nowMs: number, audioMs: number): void {
    switch (event.type) {
      case 'input_speech_started':
        this.speaking = true;
        this.since = null;
        return;
      case 'input_speech_stopped':
      case 'input_cleared':
        if (!this.speaking) return;
        this.speaking = false;
        if (!this.responding) this.since = { atMs: nowMs, audioMs };
        return;
      case 'response_created':
        this.responding = true;
        this.since = null;
        return;
      case 'response_done':
        this.responding = false;
        if (!this.speaking) this.since = { atMs: nowMs, audioMs };
        return;
      default:
        return;
    }
  }

  /** The silent segment if the timeout is due at `nowMs` (it then stops counting), else null. */
  fire(nowMs: number, audioMs: number): SilentSegment | null {
    const deadline = this.deadlineMs;
    if (deadline === null || nowMs < deadline || this.since === null) return null;
    const segment = { audioStartMs: this.since.audioMs, audioEndMs: Math.max(audioMs, this.since.audioMs) };
    this.since = null;
    return segment;
  }
}

/**
 * As OpenAI does on the timeout: `input_audio_buffer.timeout_triggered`, the silent audio committed as
 * a user item (no transcript: nothing was said), and a response, unless the client answers turns
 * itself (`create_response: false`), the engine answers only spoken turns (then nothing is asked of
 * it) or a response already runs. The chat model hears no audio, so the prompt's context ends with a
 * note of the silence (not an item of the conversation): it then asks the user to go on.
 */
export function idleTimedOut(model: ConversationModel, segment: SilentSegment, silenceMs: number) {
  const item: ConversationItem = {
    id: '',
    type: 'message',
    role: 'user',
    status: 'completed',
    content: [{ type: 'input_audio', transcript: null }],
  };
  const added = model.createItem(item, undefined);
  const first = added[0];
  // Only if a client took the generated id for an item of its own: that refusal is not the client's to hear.
  if (first?.kind !== 'emit' || first.event.type !== 'item_added') return [];
  const itemId = item.id;
  const previousItemId = first.event.previousItemId;
  const out: ConversationEffect[] = [
    { kind: 'emit', event: { type: 'input_timeout', itemId, ...segment } },
    { kind: 'emit', event: { type: 'input_committed', itemId, previousItemId } },
    ...added,
  ];
  if (!model.settings.createResponse || !model.engineResponds || model.responding) return out;
  const seconds = Math.round(silenceMs / 1000);
  const note: ConversationItem = {
    id: `${itemId}_note`,
    type: 'message',
    role: 'user',
    status: 'completed',
    content: [{ type: 'input_text', text: `(The user has said nothing for ${seconds} seconds.)` }],
  };
  return out.concat(model.createResponse({ conversation: 'auto', input: [...model.items.all(), note] }));
}
