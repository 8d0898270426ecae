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
 * Call once at process start, before the app is built. A V8 flag rather than a node option, so it
 * holds however the process is launched (npm start, the Dockerfile, a supervisor).
 */
export function tuneHeapForStreaming(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
