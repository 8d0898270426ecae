/**
 * The conversation's server events on the `oai-events` data channel, with WebRTC's differences from
 * the socket: the answer's audio leaves as RTP instead of `response.output_audio.delta` events, and
 * `output_audio_buffer.started` / `stopped` / `cleared` tell when it plays. The conversation renders its
 * events exactly as for the socket; this transport takes the audio out of them on the way.
 */
import type { TransportPort } from '../../session-core';
import type { OutboundAudio } from './call-audio';

/** What the call needs of a data channel (node-datachannel's DataChannel has these). */
export interface EventChannel {
  sendMessage(text: string): boolean;
  bufferedAmount(): number;
  isOpen(): boolean;
}

const AUDIO_DELTA = '{"type":"response.output_audio.delta"';
const RESPONSE_DONE = '{"type":"response.done"';

export class CallEvents implements TransportPort {
  /** The response whose audio is playing or last played. */
  private responseId: string | null = null;
  /** A response the client cleared: the rest of its audio is not played. */
  private cleared: string | null = null;
  private sequence = 0;
  private audio: OutboundAudio | null = null;

  constructor(
    private readonly channel: EventChannel,
    private readonly onClose: (code: number, reason: string) => void,
  ) {}

  /** The call's outgoing audio (its events call started() and stopped() here). */
  attach(audio: OutboundAudio): void {
    this.audio = audio;
  }

  started(): void {
    this.emit('output_audio_buffer.started');
  }

  stopped(): void {
    this.emit('output_audio_buffer.stopped');
  }

  send(frame: string | Buffer): void {
    if (typeof frame !== 'string' || !this.channel.isOpen()) return;
    if (frame.startsWith(AUDIO_DELTA)) {
      const delta = JSON.parse(frame) as { response_id: string; delta: string };
      this.responseId = delta.response_id;
      if (delta.response_id !== this.cleared) this.audio?.play(Buffer.from(delta.delta, 'base64'));
      return;
    }
    this.channel.sendMessage(frame);
    if (frame.startsWith(RESPONSE_DONE)) {
      const { response } = JSON.parse(frame) as { response: { id: string; status: string } };
      // An interrupted or cancelled answer stops at once; a completed one plays out what is queued.
      if (response.status !== 'completed' && response.id === this.responseId) this.clear();
    }
  }

  /**
   * A client event the call answers itself rather than the conversation: true when it was one.
   * `output_audio_buffer.clear` (the Agents SDK's interrupt() sends it after response.cancel).
   */
  takes(text: string): boolean {
    if (!text.includes('"output_audio_buffer.clear"')) return false;
    let event: { type?: unknown; event_id?: unknown };
    try {
      event = JSON.parse(text) as typeof event;
    } catch {
      return false;
    }
    if (event.type !== 'output_audio_buffer.clear') return false;
    this.cleared = this.responseId;
    this.clear();
    return true;
  }

  close(code: number, reason: string): void {
    this.audio?.close();
    this.onClose(code, reason);
  }

  get bufferedAmount(): number {
    return this.channel.bufferedAmount();
  }

  private clear(): void {
    if (this.audio?.clear()) this.emit('output_audio_buffer.cleared');
  }

  private emit(type: string): void {
    if (!this.channel.isOpen()) return;
    this.channel.sendMessage(
      JSON.stringify({ type, event_id: `event_rtc_${++this.sequence}`, response_id: this.responseId }),
    );
  }
}
