import type { Counter, Histogram } from 'prom-client';
import {
  SAMPLE_RATE,
  type EngineEvent,
  type EngineEventSink,
  type EngineStream,
  type EngineStreamConfig,
  type SpeechEngine,
} from '../../session-core';

/** The meters an instrumented engine feeds; the metrics module provides them under ENGINE_METERS. */
export interface EngineMeters {
  readonly audioSeconds: Pick<Counter<'direction'>, 'inc'>;
  readonly firstPartial: Pick<Histogram<'model'>, 'observe'>;
  readonly finalTranscript: Pick<Histogram<'model'>, 'observe'>;
  watchEngine(name: string, read: () => { inUse: number; max: number }): void;
}

export const ENGINE_METERS = Symbol('ENGINE_METERS');

const secondsOf = (pcm: Buffer): number => pcm.length / 2 / SAMPLE_RATE;

/**
 * Any engine, measured: audio in and out, time from the start of an utterance (speech detected, or
 * its first audio) to its first partial transcript, and from its end (speech stopped, or commit) to
 * its final one; streams in use and free are read from the engine at scrape time. The engine is
 * otherwise untouched, so every engine kind gets the same metrics.
 */
export function instrumentEngine(
  engine: SpeechEngine,
  metrics: EngineMeters,
  /** The engine's name in the configuration (the metrics' `engine` label). */
  name: string = engine.name,
  now: () => number = () => performance.now(),
): SpeechEngine {
  metrics.watchEngine(name, () => engine.capacity());
  return {
    name: engine.name,
    conversation: engine.conversation,
    start: engine.start ? () => engine.start!() : undefined,
    capacity: () => engine.capacity(),
    hasCapacity: () => engine.hasCapacity(),
    shutdown: () => engine.shutdown(),
    // Batch work is measured by its sessions, not as engine latency: faster-than-real-time pieces would
    // make the live latency histograms read better than live sessions fare.
    batch: engine.batch,
    files: engine.files,
    async open(config: EngineStreamConfig, sink: EngineEventSink): Promise<EngineStream> {
      const utterance = new UtteranceClock(config.model, metrics, now);
      const stream = await engine.open(config, (event) => {
        utterance.observe(event);
        sink(event);
      });
      const measured: EngineStream = {
        pushAudio: (frame) => {
          utterance.audio(frame);
          stream.pushAudio(frame);
        },
        commit: () => {
          utterance.ended();
          stream.commit();
        },
        clear: () => stream.clear(),
        interrupt: () => stream.interrupt(),
        close: () => stream.close(),
      };
      // Optional methods stay optional: the session calls them only where the engine has them.
      if (stream.prepareResponse) measured.prepareResponse = (transcript) => stream.prepareResponse!(transcript);
      if (stream.discardPreparedResponse) measured.discardPreparedResponse = () => stream.discardPreparedResponse!();
      if (stream.respond) measured.respond = (request, responseSink) => stream.respond!(request, responseSink);
      if (stream.cancelResponse) measured.cancelResponse = (responseId) => stream.cancelResponse!(responseId);
      return measured;
    },
  };
}

/** The timings of one stream's utterances, one after the other. */
class UtteranceClock {
  private startedAt: number | null = null;
  private endedAt: number | null = null;
  private partialSeen = false;

  constructor(
    private readonly model: string,
    private readonly metrics: EngineMeters,
    private readonly now: () => number,
  ) {}

  audio(frame: Buffer): void {
    this.metrics.audioSeconds.inc({ direction: 'in' }, secondsOf(frame));
    this.startedAt ??= this.now();
  }

  ended(): void {
    this.endedAt ??= this.now();
  }

  observe(event: EngineEvent): void {
    switch (event.type) {
      case 'speech_started':
        this.startedAt = this.now();
        this.partialSeen = false;
        return;
      case 'speech_stopped':
        return this.ended();
      case 'input_transcript':
        if (!event.done && event.delta !== '' && !this.partialSeen && this.startedAt !== null) {
          this.partialSeen = true;
          this.metrics.firstPartial.observe({ model: this.model }, (this.now() - this.startedAt) / 1000);
        }
        if (event.done) {
          if (this.endedAt !== null) {
            this.metrics.finalTranscript.observe({ model: this.model }, (this.now() - this.endedAt) / 1000);
          }
          this.startedAt = null;
          this.endedAt = null;
          this.partialSeen = false;
        }
        return;
      case 'output_audio':
        this.metrics.audioSeconds.inc({ direction: 'out' }, secondsOf(event.pcm));
        return;
      default:
        return;
    }
  }
}
