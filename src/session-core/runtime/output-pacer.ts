/**
 * Paces response audio to the client in real time, as 80 ms frames on the session timeline,
 * and releases each output transcript delta when playback reaches the words.
 *
 * Bounds (a client that does not read must not grow server memory):
 * - The socket backlog: while the transport holds more than `softBacklogBytes` unsent, audio
 *   frames are dropped instead of sent (late speech is useless in a live call) and the client
 *   is warned once per episode (`output_audio_dropped`); the timeline keeps running, so playback
 *   resumes in step once the client reads again. The runtime closes the session if the backlog
 *   still passes its hard cap (only non-audio events can get it there).
 * - The queue itself: at most `maxQueuedMs` of audio waits here; an engine producing more is cut.
 * Barge-in: flush() drops everything queued at once, so the client holds at most `leadMs` plus
 * the frame playing (≤ 160 ms by default) when output stops. hold() stops sending on a mere
 * suspicion of speech (the engine confirms or rules it out, mostly within 100 ms): a confirmed
 * barge-in then cuts output where the suspicion began, and one ruled out costs nothing the client
 * hears while the hold is shorter than what it holds.
 */
import { FRAME_BYTES, FRAME_MS } from '../engine/engine.port';
import type { ClockPort, TimerHandle } from './ports';
import type { ServerEvent } from '../model/session.events';
import { BYTES_PER_MS, type OutputStats } from '../model/session.types';
import type { TranscriptDelta } from '../model/transcript';

export interface OutputPacerOptions {
  readonly clock: ClockPort;
  /** Epoch ms of the session start: output timing is ms since then. */
  readonly originMs: number;
  readonly emit: (event: ServerEvent) => void;
  /** The last frame of a response has been sent (response_done for the client). */
  readonly drained: (itemId: string) => void;
  /** Bytes the transport has not written yet. */
  readonly backlog: () => number;
  /** How far ahead of its play time a frame is sent (client jitter allowance). Default 80. */
  readonly leadMs?: number;
  /** Default 256 KiB: about 4 s of base64 output audio. */
  readonly softBacklogBytes?: number;
  /** Default 30 000. */
  readonly maxQueuedMs?: number;
  /** A hold nobody releases ends by itself after this long. Default 400. */
  readonly maxHoldMs?: number;
}

/** Words of a response, timed in ms within the response's own audio. */
export type PacedTranscript = TranscriptDelta;

export class OutputPacer {
  private readonly leadMs: number;
  private readonly softBacklog: number;
  private readonly maxQueuedFrames: number;
  /** Queue as parallel arrays (no per-entry object); a null pcm marks the end of a response. */
  private readonly queueItems: string[] = [];
  private readonly queuePcm: (Buffer | null)[] = [];
  private head = 0;
  private queuedFrames = 0;
  private partial: Buffer | null = null;
  private partialLen = 0;
  private partialItem = '';
  private readonly text: PacedTranscript[] = [];
  private playheadMs = Number.NEGATIVE_INFINITY;
  private playingItem = '';
  private playingOriginMs = 0;
  private playingOffsetMs = 0;
  private timer: TimerHandle | null = null;
  private holdTimer: TimerHandle | null = null;
  private pumping = false;
  private congested = false;
  private stopped = false;
  private sent = 0;
  private dropped = 0;
  private warnings = 0;

  constructor(private readonly options: OutputPacerOptions) {
    this.leadMs = options.leadMs ?? FRAME_MS;
    this.softBacklog = options.softBacklogBytes ?? 256 * 1024;
    this.maxQueuedFrames = Math.ceil((options.maxQueuedMs ?? 30_000) / FRAME_MS);
  }

  get stats(): OutputStats {
    return { framesSent: this.sent, framesDropped: this.dropped, warnings: this.warnings };
  }

  /** Possible barge-in: send nothing until release(), flush(), or maxHoldMs. */
  hold(): void {
    if (this.stopped || this.holdTimer !== null) return;
    if (this.timer !== null) this.options.clock.clearTimer(this.timer);
    this.timer = null;
    this.holdTimer = this.options.clock.setTimer(() => this.release(), this.options.maxHoldMs ?? 400);
  }

  /** The suspicion was ruled out: output goes on, in step if the hold was short, else from now. */
  release(): void {
    if (this.holdTimer === null) return;
    this.options.clock.clearTimer(this.holdTimer);
    this.holdTimer = null;
    this.schedule();
  }

  pushAudio(itemId: string, pcm: Buffer): void {
    if (this.stopped || pcm.length === 0) return;
    if (this.partialLen > 0 && this.partialItem !== itemId) this.flushPartial();
    let offset = 0;
    if (this.partialLen > 0 && this.partial !== null) {
      const take = Math.min(FRAME_BYTES - this.partialLen, pcm.length);
      pcm.copy(this.partial, this.partialLen, 0, take);
      this.partialLen += take;
      offset = take;
      if (this.partialLen === FRAME_BYTES) this.flushPartial();
    }
    while (pcm.length - offset >= FRAME_BYTES) {
      this.enqueue(itemId, pcm.subarray(offset, offset + FRAME_BYTES));
      offset += FRAME_BYTES;
    }
    if (offset < pcm.length) {
      this.partial = Buffer.allocUnsafe(FRAME_BYTES);
      pcm.copy(this.partial, 0, offset);
      this.partialLen = pcm.length - offset;
      this.partialItem = itemId;
    }
    this.schedule();
  }

  pushTranscript(transcript: PacedTranscript): void {
    if (this.stopped) return;
    this.text.push(transcript);
    if (transcript.itemId === this.playingItem) this.releaseText(this.playingItem, this.playingOffsetMs);
  }

  /** The response is complete: its tail frame goes out, then drained() once it has played. */
  endItem(itemId: string): void {
    if (this.stopped) return;
    if (this.partialLen > 0 && this.partialItem === itemId) this.flushPartial();
    this.queueItems.push(itemId);
    this.queuePcm.push(null);
    this.schedule();
  }

  /** Barge-in: forget everything queued, including pending drains and words. */
  flush(): void {
    this.queueItems.length = 0;
    this.queuePcm.length = 0;
    this.head = 0;
    this.queuedFrames = 0;
    this.partial = null;
    this.partialLen = 0;
    this.text.length = 0;
    this.playingItem = '';
    if (this.timer !== null) this.options.clock.clearTimer(this.timer);
    this.timer = null;
    if (this.holdTimer !== null) this.options.clock.clearTimer(this.holdTimer);
    this.holdTimer = null;
  }

  /** Session closing: flush, and ignore whatever still arrives. */
  stop(): void {
    this.flush();
    this.stopped = true;
  }

  private enqueue(itemId: string, frame: Buffer): void {
    if (this.queuedFrames >= this.maxQueuedFrames) {
      this.drop('output audio was dropped: the response is longer than the output buffer');
      return;
    }
    this.queueItems.push(itemId);
    this.queuePcm.push(frame);
    this.queuedFrames++;
  }

  private flushPartial(): void {
    const frame = this.partial!.subarray(0, this.partialLen);
    const itemId = this.partialItem;
    this.partial = null;
    this.partialLen = 0;
    this.enqueue(itemId, frame);
  }

  private schedule(): void {
    if (this.timer !== null || this.holdTimer !== null || this.pumping || this.head >= this.queuePcm.length) return;
    const nowMs = this.options.clock.now() - this.options.originMs;
    // Output resuming after a pause starts now; continuous output keeps its own timeline.
    if (this.playheadMs < nowMs) this.playheadMs = nowMs;
    this.pump();
  }

  private readonly pump = (): void => {
    this.timer = null;
    const nowMs = this.options.clock.now() - this.options.originMs;
    // emit() and drained() reach the runtime, which may flush or stop us: the loop re-reads state.
    this.pumping = true;
    try {
      while (this.head < this.queuePcm.length && this.playheadMs - this.leadMs <= nowMs && this.holdTimer === null) {
        const itemId = this.queueItems[this.head];
        const pcm = this.queuePcm[this.head];
        this.queuePcm[this.head] = null; // let the frame go once played
        this.head++;
        if (pcm === null) this.finishItem(itemId);
        else this.play(itemId, pcm);
      }
    } finally {
      this.pumping = false;
    }
    if (this.stopped || this.holdTimer !== null) return;
    if (this.head >= this.queuePcm.length) {
      this.queueItems.length = 0;
      this.queuePcm.length = 0;
      this.head = 0;
      return;
    }
    if (this.head >= 256) {
      // Continuous output never empties the queue: compact now and then.
      this.queueItems.splice(0, this.head);
      this.queuePcm.splice(0, this.head);
      this.head = 0;
    }
    // Whole milliseconds, at least one: a fractional wait (after a short tail frame) could
    // otherwise round to "now" against a large epoch and spin.
    const delay = Math.max(1, Math.ceil(this.playheadMs - this.leadMs - nowMs));
    this.timer = this.options.clock.setTimer(this.pump, delay);
  };

  private play(itemId: string, pcm: Buffer): void {
    this.queuedFrames--;
    if (itemId !== this.playingItem) {
      this.playingItem = itemId;
      this.playingOriginMs = this.playheadMs;
      this.playingOffsetMs = 0;
    }
    const durationMs = pcm.length / BYTES_PER_MS;
    const backlog = this.options.backlog();
    if (backlog > this.softBacklog) {
      this.drop('output audio was dropped: the client is not reading the socket fast enough');
    } else {
      if (this.congested && backlog < this.softBacklog / 2) this.congested = false;
      this.sent++;
      const startMs = Math.round(this.playheadMs);
      this.options.emit({
        type: 'output_audio',
        itemId,
        pcm,
        startMs,
        endMs: Math.round(this.playheadMs + durationMs),
      });
    }
    this.playheadMs += durationMs;
    this.playingOffsetMs += durationMs;
    this.releaseText(itemId, this.playingOffsetMs);
  }

  private finishItem(itemId: string): void {
    if (itemId !== this.playingItem) {
      // A response without audio: its words belong at the current playhead.
      this.playingItem = itemId;
      this.playingOriginMs = this.playheadMs;
      this.playingOffsetMs = 0;
    }
    this.releaseText(itemId, Number.POSITIVE_INFINITY);
    this.options.drained(itemId);
  }

  /** Sends the words of `itemId` that start before `untilMs` of its audio. */
  private releaseText(itemId: string, untilMs: number): void {
    while (this.text.length > 0 && this.text[0].itemId === itemId && this.text[0].startMs < untilMs) {
      const t = this.text.shift()!;
      const startMs = Math.round(this.playingOriginMs + t.startMs);
      const endMs = Math.max(startMs, Math.round(this.playingOriginMs + t.endMs));
      const base = { type: 'output_transcript' as const, itemId, delta: t.delta, startMs, endMs, done: t.done };
      this.options.emit(t.transcript === undefined ? base : { ...base, transcript: t.transcript });
    }
  }

  private drop(message: string): void {
    this.dropped++;
    if (this.congested) return;
    this.congested = true;
    this.warnings++;
    this.options.emit({ type: 'warning', code: 'output_audio_dropped', message });
  }
}
