/**
 * The server's side of a timeline, for benches that run the service in their own process: wraps
 * the engine that serves a model so that each stream's decisive calls (commit: the end of a turn;
 * interrupt: barge-in; prepareResponse: an eager answer; respond: a conversation session's answer)
 * and events are stamped with performance.now(), the clock the bench's client uses too. It only watches: every call and event
 * passes through unchanged, optional methods only where the engine has them.
 */
import type { EngineEvent, EngineStream, SpeechEngine } from '../../src/session-core';
import type { EngineRegistry } from '../../src/engines';

export interface TapMark {
  at: number;
  /** A call (`commit`, `interrupt`, `prepare`) or an event type (`input_transcript` only when done). */
  kind: string;
  itemId?: string;
  /** output_audio: whether the chunk holds sound. */
  audible?: boolean;
}

const AUDIBLE_RMS = 300;

export class EngineTap {
  private readonly bySession = new Map<string, TapMark[]>();

  private constructor() {}

  /** Taps the streams that `model`'s engine opens from now on. */
  static install(registry: EngineRegistry, model: string): EngineTap {
    const tap = new EngineTap();
    const engine = registry.engineFor(model) as { open: SpeechEngine['open'] };
    const open = engine.open.bind(engine);
    engine.open = async (config, sink) => {
      const marks: TapMark[] = [];
      tap.bySession.set(config.sessionId, marks);
      const mark = (kind: string) => marks.push({ at: performance.now(), kind });
      const stream = await open(config, (event) => {
        const m = markOf(event);
        if (m) marks.push(m);
        sink(event);
      });
      const tapped: EngineStream = {
        pushAudio: (frame) => stream.pushAudio(frame),
        commit: () => {
          mark('commit');
          stream.commit();
        },
        clear: () => stream.clear(),
        interrupt: () => {
          mark('interrupt');
          stream.interrupt();
        },
        close: () => stream.close(),
      };
      if (stream.prepareResponse)
        tapped.prepareResponse = (transcript) => {
          mark('prepare');
          stream.prepareResponse!(transcript);
        };
      if (stream.discardPreparedResponse) tapped.discardPreparedResponse = () => stream.discardPreparedResponse!();
      // Conversation sessions answer through respond(): the moment the session asks is a mark.
      if (stream.respond)
        tapped.respond = (request, responseSink) => {
          mark('respond');
          stream.respond!(request, responseSink);
        };
      if (stream.cancelResponse) tapped.cancelResponse = (responseId) => stream.cancelResponse!(responseId);
      return tapped;
    };
    return tap;
  }

  marks(sessionId: string): TapMark[] {
    return this.bySession.get(sessionId) ?? [];
  }
}

function markOf(event: EngineEvent): TapMark | null {
  const at = performance.now();
  switch (event.type) {
    case 'speech_started':
    case 'speech_stopped':
    case 'response_started':
    case 'response_done':
      return { at, kind: event.type, itemId: event.itemId };
    case 'speech_suspected':
    case 'speech_ruled_out':
      return { at, kind: event.type };
    case 'input_transcript':
      return event.done ? { at, kind: 'input_transcript', itemId: event.itemId } : null;
    case 'output_audio':
      return { at, kind: 'output_audio', itemId: event.itemId, audible: rms(event.pcm) > AUDIBLE_RMS };
    default:
      return null;
  }
}

function rms(pcm: Buffer): number {
  let sum = 0;
  const n = Math.floor(pcm.length / 2);
  for (let i = 0; i < n; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return n === 0 ? 0 : Math.sqrt(sum / n);
}
