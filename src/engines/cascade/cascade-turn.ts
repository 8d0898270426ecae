/**
 * One answer: the conversation goes to the chat server; its streamed text is cut into sentences;
 * each sentence is synthesised in turn (the next one while the previous plays) and played by a
 * ResponseVoice. The response starts with its first audio, so a turn that fails before any
 * speech has no response at all.
 *
 * Failures end the turn, never the stream (documented in README.md): an `error` event
 * (`chat_failed`, `chat_timeout`, `speech_failed`, `speech_timeout`) with a message naming no
 * upstream internals (the detail goes to the log), and the speech already produced plays out. A
 * chat failure still speaks the sentences that were complete; a speech failure stops the answer.
 * cancel() (barge-in) aborts both HTTP requests at once and stops the voice.
 */
import type { EngineEvent } from '../../session-core';
import type { ChatClient, ChatMessage, ChatRequestExtras, ChatWireMessage } from './chat-client';
import { ResponseVoice, type VoiceOptions } from './response-voice';
import { SentenceSplitter } from './sentence-splitter';
import type { SpeechClient } from './speech-client';
import { UpstreamError } from './upstream-http';

export interface TurnDeps {
  chat: ChatClient;
  speech: SpeechClient;
  voice: VoiceOptions;
  maxSentenceChars: number;
  newItemId: () => string;
  emit: (event: EngineEvent) => void;
  warn: (message: string) => void;
}

/**
 * A conversation session's response (the session asked for it): tools and limits go to the chat
 * server, the text and tool calls come back through the hooks, and a text-only response is not voiced.
 */
export interface TurnOptions {
  extras: ChatRequestExtras;
  voiced: boolean;
  itemId: string;
  onText(delta: string): void;
  onToolCall(call: { callId: string; name: string; arguments: string }): void;
}

export type TurnOutcome = 'completed' | 'cancelled' | 'failed' | 'incomplete';

/** Sentences from the chat loop to the speech loop, in order. */
class SentenceQueue {
  private readonly items: string[] = [];
  private closed = false;
  private wake: (() => void) | null = null;

  push(sentence: string): void {
    this.items.push(sentence);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async next(): Promise<string | null> {
    while (this.items.length === 0 && !this.closed) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = null;
    return this.items.shift() ?? null;
  }
}

export class CascadeTurn {
  private readonly controller = new AbortController();
  private voice: ResponseVoice | null = null;
  private heard: string | null = null;
  private failed = false;
  private failure: string | null = null;
  private finishReason: string | null = null;
  /** Token counts the chat server reported (conversation responses only). */
  usage: { inputTokens: number; outputTokens: number } | null = null;
  /** Resolves when the turn is over: played out, failed or cancelled. */
  readonly finished: Promise<void>;

  constructor(
    messages: ChatWireMessage[],
    private readonly deps: TurnDeps,
    private readonly options: TurnOptions | null = null,
  ) {
    this.finished = this.run(messages);
  }

  /** How the turn ended (read once `finished` resolved) and why, for a failure or a cut. */
  get outcome(): { status: TurnOutcome; reason: string | null } {
    if (this.failed) return { status: 'failed', reason: this.failure };
    if (this.controller.signal.aborted) return { status: 'cancelled', reason: null };
    if (this.finishReason === 'length') return { status: 'incomplete', reason: 'max_output_tokens' };
    return { status: 'completed', reason: null };
  }

  /** What the user heard of this answer (all of it once it played out). */
  spokenText(): string {
    return this.heard ?? this.voice?.spokenText() ?? '';
  }

  /** Barge-in: aborts the requests and stops the voice now. */
  cancel(): void {
    if (this.controller.signal.aborted) return;
    this.heard = this.spokenText();
    this.controller.abort();
    this.voice?.interrupt();
  }

  private async run(messages: ChatWireMessage[]): Promise<void> {
    const queue = new SentenceQueue();
    const speaking = this.speak(queue);
    const splitter = new SentenceSplitter(this.deps.maxSentenceChars);
    try {
      let answered = false;
      const voiced = this.options?.voiced ?? true;
      let called = false;
      for await (const delta of this.texts(messages)) {
        if (delta === null) {
          called = true;
          continue;
        }
        answered ||= delta.trim() !== '';
        if (voiced) for (const sentence of splitter.push(delta)) queue.push(sentence);
      }
      if (voiced) for (const sentence of splitter.end()) queue.push(sentence);
      // Nothing to say is not an error for the client, but an operator should see it.
      if (!answered && !called) this.deps.warn('the chat server answered with no text');
    } catch (error) {
      this.fail(error);
    }
    queue.close();
    await speaking;
    if (this.controller.signal.aborted && !this.failed) return;
    this.voice?.end();
    await this.voice?.finished;
  }

  /** The answer's text; null for each tool call (handed to the options' hook once complete). */
  private async *texts(messages: ChatWireMessage[]): AsyncGenerator<string | null, void, undefined> {
    const options = this.options;
    if (options === null) {
      yield* this.deps.chat.stream(messages as ChatMessage[], this.controller.signal);
      return;
    }
    const calls = new Map<number, { callId: string; name: string; arguments: string }>();
    for await (const delta of this.deps.chat.streamDeltas(messages, options.extras, this.controller.signal)) {
      switch (delta.kind) {
        case 'text':
          options.onText(delta.text);
          yield delta.text;
          break;
        case 'tool_call': {
          const call = calls.get(delta.index) ?? { callId: '', name: '', arguments: '' };
          if (delta.id) call.callId = delta.id;
          if (delta.name) call.name += delta.name;
          call.arguments += delta.arguments;
          calls.set(delta.index, call);
          break;
        }
        case 'finish':
          this.finishReason = delta.reason;
          break;
        case 'usage':
          this.usage = { inputTokens: delta.promptTokens, outputTokens: delta.completionTokens };
          break;
      }
    }
    if (this.controller.signal.aborted) return;
    for (const call of calls.values()) {
      options.onToolCall(call);
      yield null;
    }
  }

  private async speak(queue: SentenceQueue): Promise<void> {
    for (let sentence = await queue.next(); sentence !== null; sentence = await queue.next()) {
      if (this.controller.signal.aborted) return;
      let begun = false;
      try {
        for await (const pcm of this.deps.speech.stream(sentence, this.controller.signal)) {
          if (!begun) {
            this.voice ??= new ResponseVoice(
              this.options?.itemId ?? this.deps.newItemId(),
              this.deps.voice,
              this.deps.emit,
            );
            this.voice.beginSentence(sentence);
            begun = true;
          }
          this.voice!.addAudio(pcm);
        }
      } catch (error) {
        this.fail(error);
        return;
      }
      if (begun) this.voice!.endSentence();
    }
  }

  /** Reports a failure once; a speech failure also stops the generation. Cancellation is no failure. */
  private fail(error: unknown): void {
    if (this.controller.signal.aborted && !this.failed) return;
    if (this.failed) return;
    this.failed = true;
    const upstream = error instanceof UpstreamError ? error : null;
    const which = upstream?.upstream ?? 'chat';
    if (which === 'speech') this.controller.abort();
    const timeout = upstream?.kind === 'timeout';
    const code = `${which}_${timeout ? 'timeout' : 'failed'}`;
    this.failure = code;
    const server = which === 'chat' ? 'the language model server' : 'the speech server';
    const reason = timeout
      ? 'did not answer in time'
      : upstream?.kind === 'http'
        ? `answered HTTP ${upstream.status}`
        : upstream?.kind === 'network'
          ? 'could not be reached'
          : 'sent an answer that could not be read';
    this.deps.warn(`${code}: ${error instanceof Error ? error.message : String(error)}`);
    this.deps.emit({ type: 'error', code, message: `this turn has no full answer: ${server} ${reason}` });
  }
}
