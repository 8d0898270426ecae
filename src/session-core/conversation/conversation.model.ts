/**
 * The state of one conversation session, pure (no I/O, no clock): its items, the user turns heard
 * on its audio, its settings and its responses. The dialect feeds it client requests and what the
 * session runtime reports (speech, transcripts, the response's paced audio), and carries out what
 * it returns: events to render, and requests to the engine (respond, cancel). It is the one entry
 * the dialect uses; what spans its parts (a user's turn cutting or starting a response) is joined
 * here.
 */
import type { ResponseEvent, TokenUsage } from '../engine/engine.port';
import { emit, type ConversationEffect } from './conversation-effects';
import { ConversationIds } from './conversation-ids';
import { ConversationItems } from './conversation-items';
import { DEFAULT_CONVERSATION_LIMITS, type ConversationLimits } from './context-budget';
import {
  DEFAULT_CONVERSATION_SETTINGS,
  type ConversationItem,
  type ConversationSettings,
  type ResponseOptions,
} from './conversation.types';
import { ItemRequests } from './item-requests';
import { ConversationResponses } from './responses';
import { UserTurns } from './user-turns';

export type { ConversationEffect } from './conversation-effects';
export type { ConversationItemsSource } from './conversation-items';
export type { UserTurn } from './user-turns';

export class ConversationModel {
  settings: ConversationSettings = { ...DEFAULT_CONVERSATION_SETTINGS };
  readonly items: ConversationItems;
  private readonly itemRequests: ItemRequests;
  private readonly turns: UserTurns;
  private readonly responses: ConversationResponses;

  constructor(
    prefix: string,
    /** Whether the engine makes responses on request (false: it answers spoken turns by itself). */
    readonly engineResponds: boolean,
    /** What a response may send upstream, and what the session keeps (context-budget.ts). */
    limits: ConversationLimits = DEFAULT_CONVERSATION_LIMITS,
  ) {
    this.items = new ConversationItems(limits.retainedChars);
    const ids = new ConversationIds(prefix);
    this.itemRequests = new ItemRequests(this.items, ids);
    this.turns = new UserTurns(this.items, ids);
    this.responses = new ConversationResponses(
      this.items,
      ids,
      this.turns,
      () => this.settings,
      engineResponds,
      limits.contextTokens,
    );
  }

  /** Totals over the session's responses, as billed (reported by the upstream, or estimated). */
  get tokens(): TokenUsage {
    return this.responses.tokens;
  }

  get responding(): boolean {
    return this.responses.responding;
  }

  // --- client requests -------------------------------------------------------------------------

  createItem(item: ConversationItem, previousItemId: string | null | undefined, clientEventId?: string) {
    return this.itemRequests.createItem(item, previousItemId, clientEventId);
  }

  retrieveItem(itemId: string, clientEventId?: string): ConversationEffect[] {
    return this.itemRequests.retrieveItem(itemId, clientEventId);
  }

  deleteItem(itemId: string, clientEventId?: string): ConversationEffect[] {
    return this.itemRequests.deleteItem(itemId, clientEventId);
  }

  truncateItem(itemId: string, contentIndex: number, audioEndMs: number, clientEventId?: string) {
    return this.itemRequests.truncateItem(itemId, contentIndex, audioEndMs, clientEventId);
  }

  createResponse(options: ResponseOptions, clientEventId?: string): ConversationEffect[] {
    return this.responses.createResponse(options, clientEventId);
  }

  cancelResponse(responseId: string | undefined, clientEventId?: string): ConversationEffect[] {
    return this.responses.cancelResponse(responseId, clientEventId);
  }

  // --- what the session heard ------------------------------------------------------------------

  speechStarted(engineItemId: string, audioStartMs: number): ConversationEffect[] {
    const turn = this.turns.turnOf(engineItemId);
    return [emit({ type: 'input_speech_started', itemId: turn.itemId, audioStartMs }), ...this.responses.bargeIn()];
  }

  speechStopped(engineItemId: string, audioEndMs: number): ConversationEffect[] {
    return this.turns.speechStopped(engineItemId, audioEndMs);
  }

  /** A manual input_audio_buffer.commit: the turn heard last, if the engine named one yet. */
  committed(clientEventId?: string): ConversationEffect[] {
    return this.turns.committed(clientEventId);
  }

  cleared(clientEventId?: string): ConversationEffect[] {
    return this.turns.cleared(clientEventId);
  }

  inputTranscript(engineItemId: string, delta: string, done: boolean, transcript: string, seconds: number) {
    const turn = this.turns.turnOf(engineItemId);
    if (!done) return delta === '' ? [] : [emit({ type: 'input_transcript_delta', itemId: turn.itemId, delta })];
    const out = this.turns.transcribed(engineItemId, turn, transcript, seconds);
    out.push(...this.responses.turnTranscribed(turn.itemId, transcript));
    return out;
  }

  // --- the response's output -------------------------------------------------------------------

  /** The engine sent a response's text, a tool call or its end. */
  responseEvent(responseId: string, event: ResponseEvent): ConversationEffect[] {
    return this.responses.responseEvent(responseId, event);
  }

  /** The session started playing an answer's voice (`itemId` is the request's, or the engine's own). */
  audioStarted(itemId: string): ConversationEffect[] {
    return this.responses.audioStarted(itemId);
  }

  audioChunk(itemId: string, pcm: Buffer, startMs: number): ConversationEffect[] {
    return this.responses.audioChunk(itemId, pcm, startMs);
  }

  audioTranscript(itemId: string, delta: string, startMs: number): ConversationEffect[] {
    return this.responses.audioTranscript(itemId, delta, startMs);
  }

  /** The answer's voice played out, or was cut (barge-in). */
  audioDone(itemId: string, interrupted: boolean): ConversationEffect[] {
    return this.responses.audioDone(itemId, interrupted);
  }

  /** The session is ending: the running response ends with it. */
  sessionEnding(): ConversationEffect[] {
    return this.responses.sessionEnding();
  }
}
