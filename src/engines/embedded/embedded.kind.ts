/**
 * The embedded engine as a configurable kind: `{ "kind": "embedded", "maxStreams": 8 }`. Batch work
 * runs in a process of its own with `batchStreams` streams at OS priority `batchNice` (0 streams:
 * on this engine's streams, beside live sessions).
 */
import { engineKind } from '../registry/engine-kind';
import { EmbeddedSpeechEngine } from './embedded-speech.engine';

/** How long a refused client is told to wait for a stream to free up. */
const CAPACITY_RETRY_MS = 2000;

export const embeddedKind = engineKind({
  kind: 'embedded',
  parse(section) {
    section.allowOnly(['maxStreams', 'warmDecoders', 'batchStreams', 'batchNice']);
    return {
      maxStreams: section.has('maxStreams') ? section.int('maxStreams', 8, 1, 10_000) : null,
      warmDecoders: section.int('warmDecoders', 1, 0, 64),
      batchStreams: section.int('batchStreams', 2, 0, 64),
      batchNice: section.int('batchNice', 10, 0, 19),
    };
  },
  // pocketsphinx-en-us is the only acoustic and language model installed.
  languages: () => ['en'],
  create(settings, context) {
    return new EmbeddedSpeechEngine({
      maxStreams: settings.maxStreams ?? context.defaultMaxStreams,
      warmDecoders: settings.warmDecoders,
      batch: { maxStreams: settings.batchStreams, nice: settings.batchNice },
      retryAfterMs: CAPACITY_RETRY_MS,
      logger: { warn: (m) => context.logger.warn(m), error: (m) => context.logger.error(m) },
      clock: context.clock,
    });
  },
});
