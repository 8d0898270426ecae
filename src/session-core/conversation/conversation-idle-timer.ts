/**
 * Runs a conversation's `idle_timeout_ms` (the session core's IdleTimeout) on the session's clock: one
 * timer, at the deadline the conversation's events leave it, moved as they move it. It also counts
 * the input audio the client appended, which the silent segment's offsets are measured in.
 */
import type { ClockPort, TimerHandle } from '../runtime/ports';
import type { ConversationEvent } from './conversation.types';
import { IdleTimeout, type SilentSegment } from './idle-timeout';

/** pcm16 mono at 24 kHz. */
const BYTES_PER_MS = 48;

export class ConversationIdleTimer {
  private readonly state = new IdleTimeout();
  private timer: TimerHandle | null = null;
  private armedFor: number | null = null;
  private audioBytes = 0;
  private stopped = false;

  constructor(
    private readonly clock: ClockPort,
    private readonly onTimeout: (segment: SilentSegment, silenceMs: number) => void,
  ) {}

  private get audioMs(): number {
    return this.audioBytes / BYTES_PER_MS;
  }

  appended(bytes: number): void {
    this.audioBytes += bytes;
  }

  configure(timeoutMs: number | null): void {
    this.state.configure(timeoutMs, this.clock.now(), this.audioMs);
    this.sync();
  }

  observe(event: ConversationEvent): void {
    this.state.observe(event, this.clock.now(), this.audioMs);
    this.sync();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private sync(): void {
    const deadline = this.stopped ? null : this.state.deadlineMs;
    if (deadline === this.armedFor) return;
    this.clear();
    if (deadline === null) return;
    this.armedFor = deadline;
    this.timer = this.clock.setTimer(() => this.due(), Math.max(0, deadline - this.clock.now()));
  }

  private due(): void {
    this.timer = null;
    this.armedFor = null;
    const silenceMs = this.state.ms ?? 0;
    const segment = this.state.fire(this.clock.now(), this.audioMs);
    // A timer may fire a hair early against the clock: it is set again for what is left.
    if (segment === null) return this.sync();
    this.onTimeout(segment, silenceMs);
  }

  private clear(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
    this.armedFor = null;
  }
}
