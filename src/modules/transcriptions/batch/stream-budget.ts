/**
 * How batch work shares one engine's streams with live sessions. Live sessions open streams as they
 * come (their admission asks the engine for a free one); batch work takes a stream only while more
 * than `reserve` are free, so a live session admitted while files are transcribed finds its stream.
 * A batch request waits for its first stream in a bounded FIFO queue: full, or waited too long, it is
 * refused 503 `capacity_exhausted` with `retry_after_ms`. A running request takes further streams for
 * its other pieces only while nobody queues, so a waiting request is served before one grows.
 *
 * Streams come free without notice (a live session ends), so waiters look again every POLL_MS.
 */
import { AppError } from '../../../platform/errors/app-error';
import type { EngineCapacity } from '../../../session-core';

const POLL_MS = 50;
const RETRY_AFTER_MS = 2000;

interface Waiter {
  grant: () => void;
  refuse: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface StreamBudgetOptions {
  queueSize: number;
  queueTimeoutMs: number;
  /**
   * Batch streams at once, whatever the engine could spare: each keeps a decode in flight on libuv's
   * thread pool, which is first come first served, so more batch streams than half the pool's threads
   * make a live session's decodes wait behind them (measured: bench/results/batch.json).
   */
  maxStreams: number;
  /**
   * Whether the engine's streams are live sessions' too, so a reserve is kept for them; false for an
   * engine kept for batch work (SpeechEngine.batch, files).
   */
  sharedWithLive?: boolean;
}

export class StreamBudget {
  private readonly queue: Waiter[] = [];
  /** Streams granted but not yet open in the engine (its inUse does not count them yet). */
  private granted = 0;
  /** Streams granted and not yet released (opening or open). */
  private held = 0;
  private poller: NodeJS.Timeout | null = null;

  constructor(
    private readonly capacity: () => EngineCapacity,
    private readonly options: StreamBudgetOptions,
  ) {}

  /** Streams kept for live sessions: a quarter of the engine's (none when it has a single stream). */
  static reserveOf(max: number): number {
    return max >= 2 ? Math.ceil(max / 4) : 0;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** The first stream of a request: at once when one is spare and nobody queues, else after a wait. */
  first(): Promise<void> {
    if (this.queue.length === 0 && this.spare() > 0) {
      this.grant();
      return Promise.resolve();
    }
    if (this.queue.length >= this.options.queueSize) {
      return Promise.reject(
        new AppError(
          'capacity_exhausted',
          `The transcription queue is full (${this.options.queueSize} requests wait for engine streams); retry later`,
          { retryAfterMs: RETRY_AFTER_MS },
        ),
      );
    }
    return new Promise<void>((grant, refuse) => {
      const waiter: Waiter = {
        grant,
        refuse,
        timer: setTimeout(() => {
          this.remove(waiter);
          refuse(
            new AppError(
              'capacity_exhausted',
              'No engine stream came free for this transcription in time; retry later',
              {
                retryAfterMs: RETRY_AFTER_MS,
              },
            ),
          );
        }, this.options.queueTimeoutMs),
      };
      this.queue.push(waiter);
      this.poll();
    });
  }

  /** One more stream for a running request's next piece, if it can be spared now. */
  more(): boolean {
    if (this.queue.length > 0 || this.spare() <= 0) return false;
    this.grant();
    return true;
  }

  /** The next piece of a request's first stream: always granted, as it only replaces the stream it closed. */
  retake(): void {
    this.grant();
  }

  /** A granted stream was opened (now counted by the engine), or will never be (`opened` false: released too). */
  settle(opened: boolean): void {
    this.granted = Math.max(0, this.granted - 1);
    if (!opened) this.release();
    else this.serve();
  }

  /** An opened stream was closed. */
  release(): void {
    this.held = Math.max(0, this.held - 1);
    this.serve();
  }

  private grant(): void {
    this.granted++;
    this.held++;
  }

  private spare(): number {
    const { inUse, max } = this.capacity();
    const reserve = this.options.sharedWithLive === false ? 0 : StreamBudget.reserveOf(max);
    const engine = max - inUse - this.granted - reserve;
    return Math.min(engine, this.options.maxStreams - this.held);
  }

  private serve(): void {
    while (this.queue.length > 0 && this.spare() > 0) {
      const waiter = this.queue.shift()!;
      clearTimeout(waiter.timer);
      this.grant();
      waiter.grant();
    }
    if (this.queue.length === 0 && this.poller) {
      clearInterval(this.poller);
      this.poller = null;
    }
  }

  private poll(): void {
    this.poller ??= setInterval(() => this.serve(), POLL_MS);
    this.poller.unref();
  }

  private remove(waiter: Waiter): void {
    const at = this.queue.indexOf(waiter);
    if (at >= 0) this.queue.splice(at, 1);
  }
}
