import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in per cent.
 *
 * The service's old generation holds ~40 MB of long-lived state (Nest, TypeORM metadata, the
 * OpenAPI document), and by default V8 sets the next full collection at ~1.4x of it. Streaming
 * sockets promote a few MB/s of short-lived frames and strings, and V8 starts incremental marking
 * as soon as the remaining room is smaller than the young generation, so at a few hundred live
 * sessions the service ran a mark-compact about every second; its pauses set the latency tail.
 * Measured with the socket benchmark (bench/socket.bench.ts) at 500-700 sessions on 2 cores:
 * mark-compacts went from ~1.2/s to ~0.15/s, CPU per audio frame fell by a fifth or more, and RSS
 * grew by ~20 MB.
 */
export const HEAP_GROWING_PERCENT = 150;

/**
 * The young generation's semi-space, MB (V8's default on 64-bit: 16).
 *
 * At 1,500 sessions the service allocates ~250 MB/s, almost all of it frames, strings and events
 * that live for one 80 ms pacing cycle or less. With 16 MB semi-spaces a scavenge ran every ~45 ms,
 * so anything alive across two of them (a frame waiting in a pacer, a pending write) was promoted:
 * ~20 MB/s into the old generation, a mark-compact every ~0.75 s (30-40 ms of incremental marking
 * plus a 5-12 ms final pause), and ~9% of the CPU in GC. The loop was busy back to back for
 * 50-100 ms around them. At 64 MB a scavenge runs every ~150 ms, what it finds is garbage, the
 * promotion rate falls near zero and mark-compacts all but stop (socket bench, 1,500 sessions:
 * 0 in a 10 s window; service p99 69 → 19 ms). The cost is up to 96 MB more RSS in reserve.
 *
 * V8 sizes the young generation when the isolate is created, so this one cannot be set from
 * tuneHeapForStreaming (setFlagsFromString accepts it and changes nothing): it has to be on node's
 * command line, as HEAP_NODE_OPTIONS. package.json's start script, the Dockerfile's CMD and the
 * socket benchmark's service child pass it.
 */
export const SEMI_SPACE_MB = 64;

/** The node options the service must be started with (see SEMI_SPACE_MB). */
export const HEAP_NODE_OPTIONS: readonly string[] = [`--max-semi-space-size=${SEMI_SPACE_MB}`];

/**
 * Call once at process start, before the app is built. A V8 flag rather than a node option, so it
 * holds however the process is launched (npm start, the Dockerfile, a supervisor).
 */
export function tuneHeapForStreaming(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
