/**
 * The batch recognition process: an embedded engine of its own, at a lower OS priority, driven over
 * IPC by BatchProcessEngine. Its decodes run on this process's libuv pool, never the service's, and
 * the kernel serves the service's threads (live sessions) first whenever both want a core.
 */
import { setPriority } from 'node:os';
import { EngineCapacityError, FRAME_BYTES, type EngineStream } from '../../../session-core';
import { EmbeddedSpeechEngine } from '../embedded-speech.engine';
import type { FromWorker, ToWorker, WorkerOptions } from './batch-protocol';

const options = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;
// Before any work reaches a thread: libuv's pool threads, started on first use, inherit it (Linux
// priorities are per thread).
setPriority(options.nice);

const send = (message: FromWorker) => process.send?.(message);
const engine = new EmbeddedSpeechEngine({
  maxStreams: options.maxStreams,
  warmDecoders: options.maxStreams,
  logger: { warn: (m) => console.warn(m), error: (m) => console.error(m) },
});
const streams = new Map<number, Promise<EngineStream | null>>();

process.on('message', (message: ToWorker) => {
  switch (message.t) {
    case 'open':
      streams.set(
        message.id,
        engine
          .open(message.config, (event) => send({ t: 'event', id: message.id, event }))
          .then(
            (stream) => {
              send({ t: 'opened', id: message.id });
              return stream;
            },
            (error: unknown) => {
              streams.delete(message.id);
              send({
                t: 'open_failed',
                id: message.id,
                capacity: error instanceof EngineCapacityError,
                retryAfterMs: error instanceof EngineCapacityError ? error.retryAfterMs : 0,
                message: error instanceof Error ? error.message : String(error),
              });
              return null;
            },
          ),
      );
      return;
    case 'audio':
      void streams.get(message.id)?.then((stream) => {
        const pcm = Buffer.from(message.pcm);
        for (let at = 0; at < pcm.length; at += FRAME_BYTES) stream?.pushAudio(pcm.subarray(at, at + FRAME_BYTES));
      });
      return;
    case 'commit':
      void streams.get(message.id)?.then((stream) => stream?.commit());
      return;
    case 'clear':
      void streams.get(message.id)?.then((stream) => stream?.clear());
      return;
    case 'close': {
      const opened = streams.get(message.id);
      streams.delete(message.id);
      void (opened ?? Promise.resolve(null))
        .then((stream) => stream?.close())
        .finally(() => send({ t: 'closed', id: message.id }));
      return;
    }
  }
});
// The service went away (or let this process go): nothing is left to do.
process.on('disconnect', () => {
  void engine.shutdown().finally(() => process.exit(0));
});

engine.start().then(
  () => send({ t: 'ready', nice: options.nice }),
  (error: unknown) => {
    console.error(`batch recognition process: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
