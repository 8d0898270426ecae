/**
 * The conversation's responses. A response is done when the engine has finished it and, if it spoke,
 * its audio has played out or was cut; its `response.done` is the last event of it, so no audio
 * follows a cancelled response. One response runs at a time: response.create meanwhile is refused as
 * OpenAI refuses it, and a user turn that should be answered then waits for the running one to end.
 * A response asked for while a committed turn of its context is still being transcribed is created
 * at once, and goes to the engine once that transcript is in.
 */
import type { ResponseEvent, ResponseRequest, TokenUsage } from '../engine/engine.port';
import { fitContext } from './context-budget';
import { copy, emit, refuse, type ConversationEffect } from './conversation-effects';
import type { ConversationIds } from './conversation-ids';
import { messagesOf, type ConversationItems, type ConversationItemsSource } from './conversation-items';
import type {
  ContentPart,
  ConversationItem,
  ConversationSettings,
  ResponseOptions,
  ResponseView,
} from './conversation.types';
import { ResponseOutput, type OutputState } from './response-output';
import { estimatedTokens, requestTokens } from './text-tokens';
import type { UserTurns } from './user-turns';

interface Response extends OutputState {
  engineFinished: boolean;
  /** The voice started and has not played out yet. */
  audioPlaying: boolean;
  /** Session-timeline ms of the answer's first audio (to time its words within it). */
  audioOriginMs: number | null;
  /** Set when the response is to end cancelled, whatever the engine says. */
  cancelReason: string | null;
  /** The engine was not asked: the embedded voicechat answers spoken turns by itself. */
  unbidden: boolean;
  /**
   * The engine's request, held while user turns of its context are still being transcribed (a
   * manual commit and response.create at once): their words go with it, as OpenAI's model hears
   * committed audio at once.
   */
  held: { request: ResponseRequest; context: ConversationItemsSource } | null;
  /** Estimated tokens of the request the engine was sent (null: not sent), and its output so far. */
  sentTokens: number | null;
  outputText: string;
}

export class ConversationResponses {
  private active: Response | null = null;
  /** A response to start once the active one is done (a user turn answered by create_response). */
  private queued = false;
  /** Totals over the session's responses, as billed (reported by the upstream, or estimated). */
  readonly tokens: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  private readonly output: ResponseOutput;

  constructor(
    private readonly items: ConversationItems,
    private readonly ids: ConversationIds,
    private readonly turns: UserTurns,
    /** Read at each use: the session's settings may be replaced whole. */
    private readonly settings: () => ConversationSettings,
    /** Whether the engine makes responses on request (false: it answers spoken turns by itself). */
    private readonly engineResponds: boolean,
    /** Estimated tokens a response's request may carry (context-budget.ts). */
    private readonly contextTokens: number,
  ) {
    this.output = new ResponseOutput(items, ids);
  }

  get responding(): boolean {
    return this.active !== null;
  }

  // --- client requests -------------------------------------------------------------------------

  createResponse(options: ResponseOptions, clientEventId?: string): ConversationEffect[] {
    if (this.active !== null) {
      return refuse(
        'conversation_already_has_active_response',
        `Conversation already has an active response in progress: ${this.active.view.id}. Wait until the response is finished before creating a new one.`,
        null,
        clientEventId,
      );
    }
    if (!this.engineResponds) {
      return refuse(
        'unsupported_event',
        "This model's engine answers spoken turns by itself: response.create is not served (configure a cascade engine for the model to drive responses).",
        'type',
        clientEventId,
      );
    }
    const context = this.contextOf(options);
    if ('refusal' in context) return refuse(...context.refusal, clientEventId);
    return this.start(options, context, clientEventId);
  }

  cancelResponse(responseId: string | undefined, clientEventId?: string): ConversationEffect[] {
    const active = this.active;
    if (active === null || (responseId !== undefined && responseId !== active.view.id)) {
      return refuse(
        'response_cancel_not_active',
        'Cancellation failed: no active response found.',
        responseId === undefined ? null : 'response_id',
        clientEventId,
      );
    }
    return this.cut(active, 'client_cancelled');
  }

  // --- the user's turns ------------------------------------------------------------------------

  /** The user talks over the answer: it ends now (the session cut its audio), unless interrupt_response is false. */
  bargeIn(): ConversationEffect[] {
    if (this.active !== null && this.settings().interruptResponse) return this.cut(this.active, 'turn_detected');
    return [];
  }

  /** A user turn's transcript is in: a response held for it may go to the engine, or the turn is answered. */
  turnTranscribed(itemId: string, transcript: string): ConversationEffect[] {
    const out: ConversationEffect[] = [];
    const held = this.active?.held;
    if (held) {
      const answersThisTurn = held.context.items().some((each) => each.id === itemId);
      if (!this.turns.transcribing(held.context)) out.push(...this.release(this.active!));
      if (answersThisTurn) return out;
    }
    // An empty turn (noise) is not answered.
    if (!this.settings().createResponse || !this.engineResponds || transcript.trim() === '') return out;
    if (this.active !== null) this.queued = true;
    else out.push(...this.start({ conversation: 'auto' }, this.items.messagesSource()));
    return out;
  }

  // --- the response's output -------------------------------------------------------------------

  /** The engine sent a response's text, a tool call or its end. */
  responseEvent(responseId: string, event: ResponseEvent): ConversationEffect[] {
    const response = this.active;
    if (response === null || response.view.id !== responseId) return [];
    switch (event.type) {
      case 'text':
        response.outputText += event.delta;
        // A voiced answer's text is shown as its transcript, word by word with its audio.
        if (response.view.audio || event.delta === '') return [];
        return this.output.text(response, event.delta);
      case 'function_call':
        response.outputText += event.name + event.arguments;
        return this.output.functionCall(response, event);
      case 'finished': {
        response.engineFinished = true;
        const out = this.bill(response, event.usage);
        if (response.cancelReason === null && event.status !== 'completed') {
          response.view.status = event.status;
          response.view.reason = event.reason;
        }
        out.push(...this.settle(response));
        return out;
      }
    }
  }

  /** The session started playing an answer's voice (`itemId` is the request's, or the engine's own). */
  audioStarted(itemId: string): ConversationEffect[] {
    let response = this.active;
    const out: ConversationEffect[] = [];
    if (response === null) {
      // An engine that answers by itself: the answer is a response the client did not ask for.
      out.push(...this.start({ conversation: 'auto' }, null, undefined, itemId));
      response = this.active!;
      response.unbidden = true;
    }
    if (response.message !== null && response.message.item.id !== itemId) return out;
    response.audioPlaying = true;
    out.push(...this.output.messageOf(response, itemId, { type: 'output_audio', transcript: '' }));
    return out;
  }

  audioChunk(itemId: string, pcm: Buffer, startMs: number): ConversationEffect[] {
    const message = this.playing(itemId);
    if (message === null) return [];
    this.active!.audioOriginMs ??= startMs;
    return [emit({ type: 'output_audio_delta', ref: message.ref, pcm })];
  }

  audioTranscript(itemId: string, delta: string, startMs: number): ConversationEffect[] {
    const message = this.playing(itemId);
    if (message === null || delta.trim() === '') return [];
    const response = this.active!;
    const part = message.item.content[0] as Extract<ContentPart, { type: 'output_audio' }>;
    part.transcript += delta;
    message.text += delta;
    this.items.recordWord(itemId, delta.trim(), startMs - (response.audioOriginMs ?? startMs));
    return [emit({ type: 'output_text_delta', ref: message.ref, delta, audio: true })];
  }

  /** The answer's voice played out, or was cut (barge-in). */
  audioDone(itemId: string, interrupted: boolean): ConversationEffect[] {
    const response = this.active;
    if (response === null || response.message?.item.id !== itemId || !response.audioPlaying) return [];
    response.audioPlaying = false;
    if (interrupted && response.cancelReason === null) response.cancelReason = 'turn_detected';
    // An engine answering by itself has no other end to wait for.
    if (response.unbidden) response.engineFinished = true;
    return this.settle(response);
  }

  /**
   * The session is ending: the running response ends with it, now. If the engine is still at work on
   * it, it is told to stop and billed as a cancelled response is (its upstream's report will come too
   * late, if at all: the session's usage is recorded before): for what it was sent and what came back.
   */
  sessionEnding(): ConversationEffect[] {
    const response = this.active;
    if (response === null) return [];
    response.cancelReason ??= 'session_ended';
    response.held = null;
    const out: ConversationEffect[] = [];
    if (!response.engineFinished) {
      response.engineFinished = true;
      // Held (never sent) or unbidden: the engine has nothing to stop.
      if (response.sentTokens !== null) out.push({ kind: 'cancel', responseId: response.view.id });
      out.push(...this.bill(response, null));
    }
    response.audioPlaying = false;
    out.push(...this.settle(response));
    return out;
  }

  // --- internals -------------------------------------------------------------------------------

  private start(
    options: ResponseOptions,
    context: ConversationItemsSource | null,
    clientEventId?: string,
    itemId: string = this.ids.item(),
  ): ConversationEffect[] {
    const settings = this.settings();
    const view: ResponseView = {
      id: this.ids.response(),
      status: 'in_progress',
      reason: null,
      output: [],
      audio: options.audio ?? settings.audio,
      conversation: options.conversation,
      metadata: options.metadata ?? null,
      usage: null,
    };
    this.active = {
      view,
      message: null,
      engineFinished: false,
      audioPlaying: false,
      audioOriginMs: null,
      cancelReason: null,
      unbidden: false,
      held: null,
      sentTokens: null,
      outputText: '',
    };
    const out: ConversationEffect[] = [emit({ type: 'response_created', response: snapshot(view), clientEventId })];
    if (context === null) return out;
    const request: ResponseRequest = {
      responseId: view.id,
      itemId,
      instructions: options.instructions ?? settings.instructions,
      messages: [],
      tools: options.tools ?? settings.tools,
      toolChoice: options.toolChoice ?? settings.toolChoice,
      audio: view.audio,
      maxOutputTokens: options.maxOutputTokens === undefined ? settings.maxOutputTokens : options.maxOutputTokens,
    };
    this.active.held = { request, context };
    if (!this.turns.transcribing(context)) out.push(...this.release(this.active));
    return out;
  }

  /**
   * The held request goes to the engine, made from the context as it is now and cut to the budget;
   * instructions and tools over the budget alone fail the response instead.
   */
  private release(response: Response): ConversationEffect[] {
    const { request, context } = response.held!;
    response.held = null;
    const fitted = fitContext(request, messagesOf(context.items()), this.contextTokens);
    if (fitted.kind === 'fits') {
      const sent = { ...request, messages: fitted.messages };
      response.sentTokens = requestTokens(sent);
      return [{ kind: 'respond', request: sent }];
    }
    response.engineFinished = true;
    response.view.status = 'failed';
    response.view.reason = 'context_budget_exceeded';
    const error = { code: 'context_budget_exceeded', message: fitted.message, param: null, origin: 'client' as const };
    return [emit({ type: 'error', error }), ...this.settle(response)];
  }

  /**
   * The items a response is made from, or why not: a referenced item that does not exist, or one
   * referenced twice (each reference would send the item again).
   */
  private contextOf(
    options: ResponseOptions,
  ): ConversationItemsSource | { refusal: [code: string, message: string, param: string] } {
    if (options.input === undefined) return this.items.messagesSource();
    const resolved: ConversationItem[] = [];
    const referenced = new Set<string>();
    for (const [i, entry] of options.input.entries()) {
      if ('reference' in entry) {
        const item = this.items.get(entry.reference);
        if (item === undefined) {
          return { refusal: ['item_not_found', `Item with id ${entry.reference} does not exist.`, 'response.input'] };
        }
        if (referenced.has(item.id)) {
          const message = `response.input[${i}] references item ${item.id} again: name each item once.`;
          return { refusal: ['invalid_value', message, `response.input[${i}].id`] };
        }
        referenced.add(item.id);
        resolved.push(item);
      } else resolved.push(entry);
    }
    return { items: () => resolved };
  }

  /** Ends the response now (cancel, barge-in): the engine stops, and it is done once nothing plays. */
  private cut(response: Response, reason: string): ConversationEffect[] {
    response.cancelReason ??= reason;
    const out: ConversationEffect[] = [];
    // Not sent to the engine yet: there is nothing for it to stop.
    if (response.held !== null) {
      response.held = null;
      response.engineFinished = true;
    }
    if (!response.engineFinished && !response.unbidden) out.push({ kind: 'cancel', responseId: response.view.id });
    // The session stops the voice at once on a barge-in; a client's cancel stops it here.
    response.audioPlaying = false;
    if (response.unbidden) response.engineFinished = true;
    out.push(...this.settle(response));
    return out;
  }

  /**
   * A response the engine was sent is over: its tokens as the upstream reported them, else estimated
   * from what was sent and what came back, are billed and shown in its `response.done`.
   */
  private bill(response: Response, reported: TokenUsage | null): ConversationEffect[] {
    if (response.sentTokens === null) return [];
    // What an upstream reports is a count: anything else (negative, fractional) is made one.
    const count = (n: number) => (Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0);
    const tokens = reported
      ? { inputTokens: count(reported.inputTokens), outputTokens: count(reported.outputTokens) }
      : estimatedTokens(response.sentTokens, response.outputText);
    response.view.usage = tokens;
    this.tokens.inputTokens += tokens.inputTokens;
    this.tokens.outputTokens += tokens.outputTokens;
    return [{ kind: 'bill', tokens }];
  }

  /** Emits the end of the response once the engine finished it and its voice is over. */
  private settle(response: Response): ConversationEffect[] {
    if (this.active !== response || !response.engineFinished || response.audioPlaying) return [];
    this.active = null;
    const view = response.view;
    if (response.cancelReason !== null) {
      view.status = 'cancelled';
      view.reason = response.cancelReason;
    } else if (view.status === 'in_progress') view.status = 'completed';
    const out = this.output.messageDone(response);
    out.push(emit({ type: 'response_done', response: snapshot(view) }));
    if (this.queued) {
      this.queued = false;
      out.push(...this.start({ conversation: 'auto' }, this.items.messagesSource()));
    }
    return out;
  }

  private playing(itemId: string): Response['message'] {
    const response = this.active;
    if (response === null || !response.audioPlaying || response.message?.item.id !== itemId) return null;
    return response.message;
  }
}

function snapshot(view: ResponseView): ResponseView {
  return { ...view, output: view.output.map(copy) };
}
