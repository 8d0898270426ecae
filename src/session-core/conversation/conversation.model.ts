/**
 * The state of one conversation session, pure (no I/O, no clock): its items, the user turns heard
 * on its audio, its settings and its responses. The dialect feeds it client requests and what the
 * session runtime reports (speech, transcripts, the response's paced audio), and carries out what
 * it returns: events to render, and requests to the engine (respond, cancel).
 *
 * A response is done when the engine has finished it and, if it spoke, its audio has played out or
 * was cut; its `response.done` is the last event of it, so no audio follows a cancelled response.
 * One response runs at a time: response.create meanwhile is refused as OpenAI refuses it, and a
 * user turn that should be answered then waits for the running one to end. A response asked for
 * while a committed turn of its context is still being transcribed is created at once, and goes to
 * the engine once that transcript is in.
 */
import type { ResponseEvent, ResponseRequest, TokenUsage } from '../engine/engine.port';
import type { SessionError } from '../model/session.types';
import { ConversationItems, messagesOf } from './conversation-items';
import {
  DEFAULT_CONVERSATION_SETTINGS,
  type ContentPart,
  type ConversationEvent,
  type ConversationItem,
  type ConversationSettings,
  type OutputRef,
  type ResponseOptions,
  type ResponseView,
} from './conversation.types';

export type ConversationEffect =
  | { kind: 'emit'; event: ConversationEvent }
  | { kind: 'respond'; request: ResponseRequest }
  | { kind: 'cancel'; responseId: string };

interface Response {
  view: ResponseView;
  /** The answer's message item, once it has output. */
  message: { item: Extract<ConversationItem, { type: 'message' }>; ref: OutputRef; text: string } | null;
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
}

export interface UserTurn {
  itemId: string;
  committed: boolean;
}

export class ConversationModel {
  settings: ConversationSettings = { ...DEFAULT_CONVERSATION_SETTINGS };
  readonly items = new ConversationItems();
  /** User turns by the engine's item id. */
  private readonly turns = new Map<string, UserTurn>();
  /** The turn heard last and not committed yet. */
  private openTurn: string | null = null;
  private active: Response | null = null;
  /** A response to start once the active one is done (a user turn answered by create_response). */
  private queued = false;
  private itemCount = 0;
  private responseCount = 0;
  /** Totals over the session's responses: what the upstream reported, kept as detail. */
  readonly tokens: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  private tokensReported = false;

  constructor(
    private readonly prefix: string,
    /** Whether the engine makes responses on request (false: it answers spoken turns by itself). */
    readonly engineResponds: boolean,
  ) {}

  /** The session's token totals, or null if no response reported usage (the engine reports none). */
  get reportedTokens(): TokenUsage | null {
    return this.tokensReported ? { ...this.tokens } : null;
  }

  get responding(): boolean {
    return this.active !== null;
  }

  // --- client requests -------------------------------------------------------------------------

  createItem(item: ConversationItem, previousItemId: string | null | undefined, clientEventId?: string) {
    if (item.id === '') item.id = this.newItemId();
    if (this.items.has(item.id)) {
      return this.refuse('item_already_exists', `Item with id ${item.id} already exists.`, 'item.id', clientEventId);
    }
    const previous = this.items.insert(item, previousItemId);
    if (previous === undefined) {
      return this.refuse(
        'item_not_found',
        `Previous item with id ${previousItemId} does not exist.`,
        'previous_item_id',
        clientEventId,
      );
    }
    return [
      this.emit({ type: 'item_added', item, previousItemId: previous, clientEventId }),
      this.emit({ type: 'item_done', item, previousItemId: previous }),
    ];
  }

  retrieveItem(itemId: string, clientEventId?: string): ConversationEffect[] {
    const item = this.items.get(itemId);
    if (item === undefined) return this.notFound(itemId, clientEventId);
    return [this.emit({ type: 'item_retrieved', item, clientEventId })];
  }

  deleteItem(itemId: string, clientEventId?: string): ConversationEffect[] {
    if (!this.items.delete(itemId)) return this.notFound(itemId, clientEventId);
    return [this.emit({ type: 'item_deleted', itemId, clientEventId })];
  }

  truncateItem(itemId: string, contentIndex: number, audioEndMs: number, clientEventId?: string) {
    if (!this.items.has(itemId)) return this.notFound(itemId, clientEventId);
    if (!this.items.truncate(itemId, contentIndex, audioEndMs)) {
      return this.refuse(
        'invalid_value',
        `Item ${itemId} has no assistant audio at content_index ${contentIndex}.`,
        'content_index',
        clientEventId,
      );
    }
    return [this.emit({ type: 'item_truncated', itemId, contentIndex, audioEndMs, clientEventId })];
  }

  createResponse(options: ResponseOptions, clientEventId?: string): ConversationEffect[] {
    if (this.active !== null) {
      return this.refuse(
        'conversation_already_has_active_response',
        `Conversation already has an active response in progress: ${this.active.view.id}. Wait until the response is finished before creating a new one.`,
        null,
        clientEventId,
      );
    }
    if (!this.engineResponds) {
      return this.refuse(
        'unsupported_event',
        "This model's engine answers spoken turns by itself: response.create is not served (configure a cascade engine for the model to drive responses).",
        'type',
        clientEventId,
      );
    }
    const context = this.contextOf(options);
    if (typeof context === 'string') return this.refuse('item_not_found', context, 'response.input', clientEventId);
    return this.start(options, context, clientEventId);
  }

  cancelResponse(responseId: string | undefined, clientEventId?: string): ConversationEffect[] {
    const active = this.active;
    if (active === null || (responseId !== undefined && responseId !== active.view.id)) {
      return this.refuse(
        'response_cancel_not_active',
        'Cancellation failed: no active response found.',
        responseId === undefined ? null : 'response_id',
        clientEventId,
      );
    }
    return this.cut(active, 'client_cancelled');
  }

  // --- what the session heard ------------------------------------------------------------------

  speechStarted(engineItemId: string, audioStartMs: number): ConversationEffect[] {
    const turn = this.turnOf(engineItemId);
    const out = [this.emit({ type: 'input_speech_started', itemId: turn.itemId, audioStartMs })];
    // The user talks over the answer: it ends now (the session cut its audio), unless interrupt_response is false.
    if (this.active !== null && this.settings.interruptResponse) out.push(...this.cut(this.active, 'turn_detected'));
    return out;
  }

  speechStopped(engineItemId: string, audioEndMs: number): ConversationEffect[] {
    const turn = this.turnOf(engineItemId);
    return [this.emit({ type: 'input_speech_stopped', itemId: turn.itemId, audioEndMs }), ...this.commit(turn)];
  }

  /** A manual input_audio_buffer.commit: the turn heard last, if the engine named one yet. */
  committed(clientEventId?: string): ConversationEffect[] {
    const turn = this.openTurn === null ? undefined : this.turns.get(this.openTurn);
    return turn === undefined ? [] : this.commit(turn, clientEventId);
  }

  cleared(clientEventId?: string): ConversationEffect[] {
    if (this.openTurn !== null && !this.turns.get(this.openTurn)?.committed) this.turns.delete(this.openTurn);
    this.openTurn = null;
    return [this.emit({ type: 'input_cleared', clientEventId })];
  }

  inputTranscript(engineItemId: string, delta: string, done: boolean, transcript: string, seconds: number) {
    const turn = this.turnOf(engineItemId);
    if (!done) return delta === '' ? [] : [this.emit({ type: 'input_transcript_delta', itemId: turn.itemId, delta })];
    const out = turn.committed ? [] : this.commit(turn);
    this.turns.delete(engineItemId);
    if (this.openTurn === engineItemId) this.openTurn = null;
    const item = this.items.get(turn.itemId);
    if (item?.type === 'message' && item.content[0]?.type === 'input_audio') item.content[0].transcript = transcript;
    out.push(this.emit({ type: 'input_transcript_done', itemId: turn.itemId, transcript, seconds }));
    if (item !== undefined) {
      out.push(this.emit({ type: 'item_done', item, previousItemId: this.items.previousOf(item.id) }));
    }
    const held = this.active?.held;
    if (held) {
      const answersThisTurn = held.context.items().some((each) => each.id === turn.itemId);
      if (!this.transcribing(held.context)) out.push(this.release(this.active!));
      if (answersThisTurn) return out;
    }
    // An empty turn (noise) is not answered.
    if (!this.settings.createResponse || !this.engineResponds || transcript.trim() === '') return out;
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
        // A voiced answer's text is shown as its transcript, word by word with its audio.
        if (response.view.audio || event.delta === '') return [];
        return this.text(response, event.delta);
      case 'function_call':
        return this.functionCall(response, event);
      case 'finished':
        response.engineFinished = true;
        if (event.usage !== null) {
          response.view.usage = event.usage;
          this.tokens.inputTokens += event.usage.inputTokens;
          this.tokens.outputTokens += event.usage.outputTokens;
          this.tokensReported = true;
        }
        if (response.cancelReason === null && event.status !== 'completed') {
          response.view.status = event.status;
          response.view.reason = event.reason;
        }
        return this.settle(response);
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
    out.push(...this.messageOf(response, itemId, { type: 'output_audio', transcript: '' }));
    return out;
  }

  audioChunk(itemId: string, pcm: Buffer, startMs: number): ConversationEffect[] {
    const message = this.playing(itemId);
    if (message === null) return [];
    this.active!.audioOriginMs ??= startMs;
    return [this.emit({ type: 'output_audio_delta', ref: message.ref, pcm })];
  }

  audioTranscript(itemId: string, delta: string, startMs: number): ConversationEffect[] {
    const message = this.playing(itemId);
    if (message === null || delta.trim() === '') return [];
    const response = this.active!;
    const part = message.item.content[0] as Extract<ContentPart, { type: 'output_audio' }>;
    part.transcript += delta;
    message.text += delta;
    this.items.recordWord(itemId, delta.trim(), startMs - (response.audioOriginMs ?? startMs));
    return [this.emit({ type: 'output_text_delta', ref: message.ref, delta, audio: true })];
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

  /** The session is ending: the running response ends with it. */
  sessionEnding(): ConversationEffect[] {
    const response = this.active;
    if (response === null) return [];
    response.cancelReason ??= 'session_ended';
    response.held = null;
    response.engineFinished = true;
    response.audioPlaying = false;
    return this.settle(response);
  }

  // --- internals -------------------------------------------------------------------------------

  private start(
    options: ResponseOptions,
    context: ConversationItemsSource | null,
    clientEventId?: string,
    itemId: string = this.newItemId(),
  ): ConversationEffect[] {
    const settings = this.settings;
    const view: ResponseView = {
      id: `resp_${this.prefix}_${++this.responseCount}`,
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
    };
    const out: ConversationEffect[] = [
      this.emit({ type: 'response_created', response: snapshot(view), clientEventId }),
    ];
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
    if (!this.transcribing(context)) out.push(this.release(this.active));
    return out;
  }

  /** Whether a committed user turn in `context` still waits for its transcript. */
  private transcribing(context: ConversationItemsSource): boolean {
    const pending = new Set([...this.turns.values()].filter((turn) => turn.committed).map((turn) => turn.itemId));
    return pending.size > 0 && context.items().some((item) => pending.has(item.id));
  }

  /** The held request goes to the engine, made from the context as it is now. */
  private release(response: Response): ConversationEffect {
    const { request, context } = response.held!;
    response.held = null;
    return { kind: 'respond', request: { ...request, messages: messagesOf(context.items()) } };
  }

  /** The items a response is made from, or a message naming a missing referenced item. */
  private contextOf(options: ResponseOptions): ConversationItemsSource | string {
    if (options.input === undefined) return this.items.messagesSource();
    const resolved: ConversationItem[] = [];
    for (const entry of options.input) {
      if ('reference' in entry) {
        const item = this.items.get(entry.reference);
        if (item === undefined) return `Item with id ${entry.reference} does not exist.`;
        resolved.push(item);
      } else resolved.push(entry);
    }
    return { items: () => resolved };
  }

  private text(response: Response, delta: string): ConversationEffect[] {
    const out =
      response.message === null ? this.messageOf(response, this.newItemId(), { type: 'output_text', text: '' }) : [];
    const message = response.message!;
    const part = message.item.content[0] as Extract<ContentPart, { type: 'output_text' }>;
    part.text += delta;
    message.text += delta;
    out.push(this.emit({ type: 'output_text_delta', ref: message.ref, delta, audio: false }));
    return out;
  }

  private functionCall(response: Response, call: { callId: string; name: string; arguments: string }) {
    const id = this.newItemId();
    const callId = call.callId === '' ? `call_${id}` : call.callId;
    const item: ConversationItem = {
      id,
      type: 'function_call',
      status: 'in_progress',
      callId,
      name: call.name,
      arguments: '',
    };
    const outputIndex = response.view.output.length;
    response.view.output.push(item);
    const ref = { responseId: response.view.id, itemId: id, outputIndex, contentIndex: 0 };
    const out = [
      this.emit({ type: 'output_item_added', responseId: response.view.id, outputIndex, item: { ...item } }),
    ];
    if (response.view.conversation === 'auto') {
      const previousItemId = this.items.insert(item) ?? null;
      out.push(this.emit({ type: 'item_added', item: { ...item }, previousItemId }));
    }
    if (call.arguments !== '') {
      out.push(this.emit({ type: 'function_call_arguments_delta', ref, callId, delta: call.arguments }));
    }
    item.arguments = call.arguments;
    item.status = 'completed';
    out.push(
      this.emit({ type: 'function_call_arguments_done', ref, callId, name: call.name, arguments: call.arguments }),
    );
    if (response.view.conversation === 'auto') {
      out.push(this.emit({ type: 'item_done', item, previousItemId: this.items.previousOf(id) }));
    }
    out.push(this.emit({ type: 'output_item_done', responseId: response.view.id, outputIndex, item }));
    return out;
  }

  /** The response's message item begins: output item, conversation item, content part. */
  private messageOf(response: Response, itemId: string, part: ContentPart): ConversationEffect[] {
    if (response.message !== null) return [];
    const item: Extract<ConversationItem, { type: 'message' }> = {
      id: itemId,
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    const outputIndex = response.view.output.length;
    response.view.output.push(item);
    const ref = { responseId: response.view.id, itemId, outputIndex, contentIndex: 0 };
    response.message = { item, ref, text: '' };
    const out = [this.emit({ type: 'output_item_added', responseId: response.view.id, outputIndex, item: copy(item) })];
    if (response.view.conversation === 'auto') {
      const previousItemId = this.items.insert(item) ?? null;
      out.push(this.emit({ type: 'item_added', item: copy(item), previousItemId }));
    }
    item.content.push(part);
    out.push(this.emit({ type: 'content_part_added', ref, part: { ...part } }));
    return out;
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

  /** Emits the end of the response once the engine finished it and its voice is over. */
  private settle(response: Response): ConversationEffect[] {
    if (this.active !== response || !response.engineFinished || response.audioPlaying) return [];
    this.active = null;
    const view = response.view;
    if (response.cancelReason !== null) {
      view.status = 'cancelled';
      view.reason = response.cancelReason;
    } else if (view.status === 'in_progress') view.status = 'completed';
    const out: ConversationEffect[] = [];
    const message = response.message;
    if (message !== null) {
      const { item, ref } = message;
      item.status = view.status === 'completed' ? 'completed' : 'incomplete';
      const part = item.content[0];
      const audio = part.type === 'output_audio';
      if (audio) out.push(this.emit({ type: 'output_audio_done', ref }));
      out.push(this.emit({ type: 'output_text_done', ref, text: message.text, audio }));
      out.push(this.emit({ type: 'content_part_done', ref, part: { ...part } }));
      if (view.conversation === 'auto' && this.items.has(item.id)) {
        out.push(this.emit({ type: 'item_done', item: copy(item), previousItemId: this.items.previousOf(item.id) }));
      }
      out.push(
        this.emit({ type: 'output_item_done', responseId: view.id, outputIndex: ref.outputIndex, item: copy(item) }),
      );
    }
    out.push(this.emit({ type: 'response_done', response: snapshot(view) }));
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

  private turnOf(engineItemId: string): UserTurn {
    let turn = this.turns.get(engineItemId);
    if (turn === undefined) {
      turn = { itemId: this.newItemId(), committed: false };
      this.turns.set(engineItemId, turn);
      this.openTurn = engineItemId;
    }
    return turn;
  }

  /** The user's audio becomes an item of the conversation. */
  private commit(turn: UserTurn, clientEventId?: string): ConversationEffect[] {
    if (turn.committed) return [];
    turn.committed = true;
    const item: ConversationItem = {
      id: turn.itemId,
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_audio', transcript: null }],
    };
    const previousItemId = this.items.insert(item) ?? null;
    return [
      this.emit({ type: 'input_committed', itemId: item.id, previousItemId, clientEventId }),
      this.emit({ type: 'item_added', item: copy(item), previousItemId }),
    ];
  }

  private newItemId(): string {
    return `item_${this.prefix}_${++this.itemCount}`;
  }

  private notFound(itemId: string, clientEventId?: string): ConversationEffect[] {
    return this.refuse('item_not_found', `Item with id ${itemId} does not exist.`, 'item_id', clientEventId);
  }

  private refuse(code: string, message: string, param: string | null, clientEventId?: string) {
    const error: SessionError = { code, message, param, origin: 'client', clientEventId };
    return [this.emit({ type: 'error', error })];
  }

  private emit(event: ConversationEvent): ConversationEffect {
    return { kind: 'emit', event };
  }
}

/** The items a response is made from, read when the request is built. */
export interface ConversationItemsSource {
  items(): readonly ConversationItem[];
}

function snapshot(view: ResponseView): ResponseView {
  return { ...view, output: view.output.map(copy) };
}

/** Events carry copies: an item keeps changing after an event about it was made. */
function copy<T extends ConversationItem>(item: T): T {
  return item.type === 'message' ? { ...item, content: item.content.map((part) => ({ ...part })) } : { ...item };
}
