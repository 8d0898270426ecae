/**
 * The connections of one conversation session and the delivery of what it says to them: exactly
 * one media connection and any number of control connections (conversation-connection.ts).
 *
 * Delivery is synchronous and re-entrant, and its order is the session's: each output goes to the
 * media connection first, then to the controls, before `deliver` returns. A connection may answer an
 * event from inside `send`: a phone bridge hears `input_audio_buffer.speech_started` and at once
 * sends the carrier `clear` and the session a `conversation.item.truncate`, which the session takes
 * while it is still rendering that event (what that makes it say is queued behind, `afterEffects`).
 * Barge-in on a phone call needs that promptness: the session stops sending audio when it suspects
 * speech, and the bridge clears only while some audio it sent is unplayed (a mark not yet echoed),
 * so `speech_started` held back (a timer, a queue, the controls served first) finds the caller’s
 * buffer played out and no clear is sent (tried: 400 ms late fails the Twilio barge-in e2e).
 */
import { errorText } from '../runtime/runtime-support';
import type { ConnectionRole, ConversationConnection, ConversationOutput } from './conversation-connection';

export interface ConversationFanoutHooks {
  /** A send to the media connection threw: the session's transport is gone. */
  readonly mediaLost: () => void;
  /** The media connection's backlog passed the hard cap (once): the session ends `client_not_reading`. */
  readonly mediaNotReading: () => void;
  readonly warn: (message: string) => void;
}

export class ConversationFanout<V> {
  private media: ConversationConnection<V> | null = null;
  private readonly controls = new Set<ConversationConnection<V>>();
  private overflowed = false;

  constructor(
    private readonly hardBacklogBytes: number,
    private readonly hooks: ConversationFanoutHooks,
  ) {}

  /** What the media connection has not written yet (the runtime's pacing reads it). */
  get backlog(): number {
    return this.media?.bufferedAmount ?? 0;
  }

  isMedia(connection: ConversationConnection<V>): boolean {
    return connection === this.media;
  }

  attach(connection: ConversationConnection<V>, role: ConnectionRole): void {
    if (role === 'control') {
      this.controls.add(connection);
      return;
    }
    if (this.media !== null) throw new Error('a conversation session has one media connection');
    this.media = connection;
  }

  /** Forgets a connection; true when it was the media connection (its leaving ends the session). */
  leave(connection: ConversationConnection<V>): boolean {
    if (connection !== this.media) {
      this.controls.delete(connection);
      return false;
    }
    this.media = null;
    return true;
  }

  /**
   * To every connection (or `only` to one, if it is still attached): the media one first, then those
   * watching, which hear no output audio. A media connection gone or not reading ends the session, as
   * a socket's would; a control connection gone is dropped, and one not reading is closed, alone.
   */
  deliver(output: ConversationOutput<V>, only: ConversationConnection<V> | null = null): void {
    const media = this.media;
    if (media !== null && (only === null || only === media)) {
      try {
        media.send(output);
      } catch (error) {
        this.hooks.mediaLost();
        this.hooks.warn(`send failed: ${errorText(error)}`);
      }
      if (!this.overflowed && media.bufferedAmount > this.hardBacklogBytes) {
        this.overflowed = true;
        this.hooks.mediaNotReading();
      }
    }
    if (this.controls.size === 0 || output.type === 'output_audio_delta') return;
    for (const control of this.controls) {
      if (only !== null && control !== only) continue;
      try {
        control.send(output);
        if (control.bufferedAmount <= this.hardBacklogBytes) continue;
        this.controls.delete(control);
        control.close(1008, 'client_not_reading');
      } catch (error) {
        this.controls.delete(control);
        this.hooks.warn(`send to a control connection failed: ${errorText(error)}`);
      }
    }
  }

  /** The session's end: every connection still attached is closed with it. */
  closeAll(code: number, reason: string): void {
    const connections = [...(this.media ? [this.media] : []), ...this.controls];
    this.media = null;
    this.controls.clear();
    for (const connection of connections) {
      try {
        connection.close(code, reason);
      } catch (error) {
        this.hooks.warn(`closing a connection failed: ${errorText(error)}`);
      }
    }
  }
}
