/** Feeds session audio into an engine stream and records what comes out, with arrival times. */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

import { EngineEvent, EngineStream, FRAME_MS, FRAME_SAMPLES } from '../../../session-core';

export interface TimedEvent {
  /** performance.now() at arrival. */
  at: number;
  event: EngineEvent;
}

export class EventLog {
  readonly events: TimedEvent[] = [];
  private waiters: Array<{ test: (e: EngineEvent) => boolean; resolve: (e: EngineEvent) => void }> = [];

  readonly sink = (event: EngineEvent): void => {
    this.events.push({ at: performance.now(), event });
    this.waiters = this.waiters.filter((w) => {
      if (!w.test(event)) return true;
      w.resolve(event);
      return false;
    });
  };

  of<T extends EngineEvent['type']>(type: T): Array<Extract<EngineEvent, { type: T }>> {
    return this.events.map((e) => e.event).filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
  }

  timed<T extends EngineEvent['type']>(type: T): Array<{ at: number; event: Extract<EngineEvent, { type: T }> }> {
    return this.events.filter(
      (e): e is { at: number; event: Extract<EngineEvent, { type: T }> } => e.event.type === type,
    );
  }

  /** Final input transcripts, in order. */
  finals(): Array<Extract<EngineEvent, { type: 'input_transcript' }>> {
    return this.of('input_transcript').filter((e) => e.done);
  }

  /** Resolves with the first future event passing `test`. */
  next(test: (event: EngineEvent) => boolean, timeoutMs = 30_000): Promise<EngineEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for an engine event')), timeoutMs);
      this.waiters.push({
        test,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      });
    });
  }
}

export interface FeedOptions {
  /** Push at real-time pace (80 ms per frame) instead of as fast as the loop turns. */
  realtime?: boolean;
  /** Called before each frame with the stream time at the frame's start. */
  beforeFrame?: (ms: number) => void | Promise<void>;
}

/** Pushes `pcm` as 80 ms frames. Returns performance.now() at each frame push (index = frame). */
export async function feedAudio(stream: EngineStream, pcm: Int16Array, options: FeedOptions = {}): Promise<number[]> {
  const pushedAt: number[] = [];
  const start = performance.now();
  for (let i = 0, frame = 0; i < pcm.length; i += FRAME_SAMPLES, frame++) {
    await options.beforeFrame?.(frame * FRAME_MS);
    const chunk = pcm.subarray(i, i + FRAME_SAMPLES);
    const buffer = Buffer.alloc(chunk.length * 2);
    chunk.forEach((sample, k) => buffer.writeInt16LE(sample, k * 2));
    if (options.realtime) {
      // A frame can only be sent once it has been "recorded": at the end of its 80 ms.
      const due = start + (frame + 1) * FRAME_MS - performance.now();
      if (due > 0) await sleep(due);
    } else {
      await nextTurn();
    }
    pushedAt.push(performance.now());
    stream.pushAudio(buffer);
  }
  return pushedAt;
}

/**
 * Feeds several streams at real-time pace from one loop (one timer for all, as a server's sockets
 * would deliver). Returns performance.now() at audio time 0 and the worst lateness of a push.
 */
export async function feedTogether(
  entries: Array<{ stream: EngineStream; pcm: Int16Array }>,
): Promise<{ t0: number; maxLateMs: number }> {
  const frames = Math.max(...entries.map((e) => Math.ceil(e.pcm.length / FRAME_SAMPLES)));
  const buffers = entries.map((e) => {
    const bytes = Buffer.alloc(e.pcm.length * 2);
    e.pcm.forEach((sample, k) => bytes.writeInt16LE(sample, k * 2));
    return bytes;
  });
  const t0 = performance.now();
  let maxLateMs = 0;
  for (let frame = 0; frame < frames; frame++) {
    const due = t0 + (frame + 1) * FRAME_MS;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    maxLateMs = Math.max(maxLateMs, performance.now() - due);
    entries.forEach((entry, i) => {
      const from = frame * FRAME_SAMPLES * 2;
      if (from < buffers[i].length) entry.stream.pushAudio(buffers[i].subarray(from, from + FRAME_SAMPLES * 2));
    });
  }
  return { t0, maxLateMs };
}
