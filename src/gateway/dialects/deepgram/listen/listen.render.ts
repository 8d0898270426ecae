/**
 * The outbound half of the Deepgram dialect: neutral events → `Results`, `SpeechStarted` and the
 * closing `Metadata`. Nothing is sent on open, and nothing for what Deepgram has no message for
 * (acks, usage, warnings, errors). A final result is `speech_final` when the engine's turn
 * detection ended the utterance (endpointing), `from_finalize` when a Finalize did. `UtteranceEnd`
 * depends on how much audio has arrived since the last word, which the connection knows: it asks
 * utteranceEnd() as audio comes in.
 */
import { createHash } from 'node:crypto';
import type { EventRenderer, RenderedFrames } from '../../../../session-core';
import type { ServerEvent } from '../../../../session-core';
import type { ListenOptions } from './listen.query';
import { deepgramWords, fromEngineWords, seconds, spreadWords, type TimedWord } from '../shared/deepgram-words';

export interface ListenRendererOptions {
  /** Deepgram's request_id: the session id, so that it can be looked up over REST. */
  readonly requestId: string;
  readonly listen: ListenOptions;
  readonly model: string;
  readonly engineName: string;
  /** The audio received, for Metadata. */
  readonly audio: { readonly receivedSeconds: number; sha256(): string };
}

const CHANNEL = [0, 1];

export class ListenRenderer implements EventRenderer {
  private readonly heard = new Map<string, TimedWord[]>();
  private readonly stopped = new Set<string>();
  private finalizing = false;
  private createdAt = new Date(0).toISOString();
  private lastWordEndMs = 0;
  private wordsSinceUtteranceEnd = false;
  private readonly modelUuid: string;
  private readonly modelInfo: { name: string; version: string; arch: string };

  constructor(private readonly options: ListenRendererOptions) {
    this.modelUuid = uuidOf(options.model);
    this.modelInfo = { name: options.model, version: '1', arch: options.engineName };
  }

  render(event: ServerEvent): RenderedFrames | null {
    switch (event.type) {
      case 'started':
        this.createdAt = new Date(event.session.startedAtMs).toISOString();
        return null;
      case 'input_committed':
        this.finalizing = true;
        return null;
      case 'input_cleared':
        this.heard.clear();
        return null;
      case 'speech_started':
        if (!this.options.listen.vadEvents) return null;
        return JSON.stringify({ type: 'SpeechStarted', channel: CHANNEL, timestamp: seconds(event.startMs) });
      case 'speech_stopped':
        this.stopped.add(event.itemId);
        return null;
      case 'input_transcript':
        return event.done ? this.final(event) : this.interim(event);
      case 'closed':
        return JSON.stringify({
          type: 'Metadata',
          transaction_key: 'deprecated',
          request_id: this.options.requestId,
          sha256: this.options.audio.sha256(),
          created: this.createdAt,
          duration: this.options.audio.receivedSeconds,
          channels: 1,
          models: [this.modelUuid],
          model_info: { [this.modelUuid]: this.modelInfo },
        });
      default:
        return null;
    }
  }

  /** The UtteranceEnd that `positionMs` of received audio calls for, once per run of words. */
  utteranceEnd(positionMs: number): string | null {
    const gap = this.options.listen.utteranceEndMs;
    if (gap === null || !this.wordsSinceUtteranceEnd || positionMs - this.lastWordEndMs < gap) return null;
    this.wordsSinceUtteranceEnd = false;
    return JSON.stringify({ type: 'UtteranceEnd', channel: CHANNEL, last_word_end: seconds(this.lastWordEndMs) });
  }

  private interim(event: Extract<ServerEvent, { type: 'input_transcript' }>): string | null {
    const words = this.heard.get(event.itemId) ?? [];
    words.push(...spreadWords(event.delta, event.startMs, event.endMs));
    this.heard.set(event.itemId, words);
    if (!this.options.listen.interimResults || words.length === 0) return null;
    return this.results(words, event.confidence ?? 1, { is_final: false, speech_final: false });
  }

  private final(event: Extract<ServerEvent, { type: 'input_transcript' }>): string {
    const heard = this.heard.get(event.itemId) ?? [];
    const transcript = event.transcript ?? heard.map((w) => w.word).join(' ');
    // The engine's final text wins; the interim words keep their timings only when they read the same.
    const words =
      event.words !== undefined && event.words.length > 0
        ? fromEngineWords(event.words)
        : heard.length > 0 && heard.map((w) => w.word).join(' ') === transcript.trim().split(/\s+/).join(' ')
          ? heard
          : spreadWords(transcript, event.startMs, event.endMs);
    const fromFinalize = this.finalizing;
    const speechFinal = !fromFinalize && this.stopped.has(event.itemId);
    this.finalizing = false;
    this.heard.delete(event.itemId);
    this.stopped.delete(event.itemId);
    const flags = { is_final: true, speech_final: speechFinal, from_finalize: fromFinalize };
    return this.results(words, event.confidence ?? 1, flags, event.startMs, event.endMs);
  }

  private results(
    words: readonly TimedWord[],
    confidence: number,
    flags: { is_final: boolean; speech_final: boolean; from_finalize?: boolean },
    fromMs = words[0]?.startMs ?? 0,
    toMs = words.at(-1)?.endMs ?? fromMs,
  ): string {
    const rendered = deepgramWords(words, {
      punctuate: this.options.listen.punctuate,
      final: flags.is_final,
      confidence,
    });
    if (words.length > 0) {
      this.lastWordEndMs = Math.max(this.lastWordEndMs, words[words.length - 1].endMs);
      this.wordsSinceUtteranceEnd = true;
    }
    const start = words.length > 0 ? Math.min(fromMs, words[0].startMs) : fromMs;
    return JSON.stringify({
      type: 'Results',
      channel_index: CHANNEL,
      duration: seconds(Math.max(toMs, start) - start),
      start: seconds(start),
      ...flags,
      channel: { alternatives: [{ transcript: rendered.transcript, confidence, words: rendered.words }] },
      metadata: { request_id: this.options.requestId, model_info: this.modelInfo, model_uuid: this.modelUuid },
    });
  }
}

/** A stable UUID-shaped id per model name (Deepgram reports models by uuid). */
function uuidOf(name: string): string {
  const hex = createHash('sha1').update(`continuum-model:${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
