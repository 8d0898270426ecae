/**
 * One session's stream in the cascaded voice agent: a listening stream of another engine (opened
 * as transcription) hears the user; each final transcript of a live session is answered by a
 * CascadeTurn. Barge-in: the session's interrupt(), or the listener hearing speech start (or, with
 * manual turns, the first words of a new item) while an answer is produced or played, cancels the
 * answer at once.
 */
import { newId } from '../../platform/ids';
import type {
  EngineEvent,
  EngineEventSink,
  EngineStream,
  EngineStreamConfig,
  ResponseRequest,
  ResponseSink,
} from '../../session-core';
import { CascadeTurn, type TurnDeps } from './cascade-turn';
import { chatMessagesOf, chatExtrasOf } from './conversation-request';
import { Conversation } from './conversation';

export interface CascadeStreamDeps extends Omit<TurnDeps, 'emit' | 'newItemId'> {
  systemPrompt: string;
  historyMessages: number;
  error: (message: string) => void;
  /** Called once, after the last event. */
  release: () => void;
}

export class CascadeStream implements EngineStream {
  private listening: EngineStream | null = null;
  private readonly conversation: Conversation;
  private turn: CascadeTurn | null = null;
  /** The user item whose final transcript the current turn answers. */
  private answering: string | null = null;
  /** Conversation sessions: the response the current turn produces. */
  private responseId: string | null = null;
  private closing: Promise<void> | null = null;
  /** Set before the listener's last finals arrive (during close()): they are not answered. */
  private stopping = false;
  private closed = false;

  constructor(
    private readonly config: EngineStreamConfig,
    private readonly sink: EngineEventSink,
    private readonly deps: CascadeStreamDeps,
  ) {
    this.conversation = new Conversation(deps.systemPrompt, deps.historyMessages);
  }

  /** Called once by the engine with the listener's stream (opened with this.hear as its sink). */
  attach(listening: EngineStream): void {
    this.listening = listening;
  }

  readonly hear = (event: EngineEvent): void => {
    switch (event.type) {
      case 'response_started':
      case 'output_audio':
      case 'output_transcript':
      case 'response_done':
        return; // a transcription stream has no voice; nothing of it is ours to forward
      case 'speech_started':
        // As the embedded engine does: the session hears of the speech first (and cuts the response
        // it is playing), then the answer stops.
        this.emit(event);
        if (!this.sessionCuts) this.bargeIn();
        return;
      case 'input_transcript':
        this.emit(event);
        if (!this.sessionCuts && event.delta.trim() !== '' && event.itemId !== this.answering) this.bargeIn();
        if (event.done) this.answer(event.itemId, event.transcript ?? '');
        return;
      default:
        this.emit(event);
    }
  };

  /**
   * A conversation session with turn detection decides barge-in itself (its interrupt() comes at
   * speech start unless the client set interrupt_response: false), so the answer is not cut here.
   */
  private get sessionCuts(): boolean {
    return this.config.conversation === true && this.config.turnDetection !== null;
  }

  pushAudio(frame: Buffer): void {
    if (!this.stopping) this.listening?.pushAudio(frame);
  }

  commit(): void {
    if (!this.stopping) this.listening?.commit();
  }

  clear(): void {
    if (!this.stopping) this.listening?.clear();
  }

  interrupt(): void {
    this.bargeIn();
  }

  close(): Promise<void> {
    this.stopping = true;
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.bargeIn();
    try {
      // Final transcripts still arrive (and are forwarded); they are not answered any more.
      await this.listening?.close();
    } finally {
      this.closed = true;
      this.deps.release();
    }
  }

  /** Conversation sessions: one response, as the session asked for it (it cuts the one running). */
  respond(request: ResponseRequest, responseSink: ResponseSink): void {
    const sink = this.guarded(responseSink);
    if (this.stopping) {
      sink({ type: 'finished', status: 'cancelled', reason: null, usage: null });
      return;
    }
    this.bargeIn();
    const turn: CascadeTurn = new CascadeTurn(
      chatMessagesOf(request, this.deps.systemPrompt),
      {
        ...this.deps,
        newItemId: () => request.itemId,
        emit: (event) => {
          if (this.turn === turn) this.emit(event);
        },
      },
      {
        extras: chatExtrasOf(request),
        voiced: request.audio,
        itemId: request.itemId,
        onText: (delta) => sink({ type: 'text', delta }),
        onToolCall: (call) => sink({ type: 'function_call', ...call }),
      },
    );
    this.turn = turn;
    this.responseId = request.responseId;
    turn.finished
      .catch((error: unknown) => this.deps.error(`cascade response failed: ${String(error)}`))
      .finally(() => {
        if (this.turn === turn) {
          this.turn = null;
          this.responseId = null;
        }
        const { status, reason } = turn.outcome;
        sink({ type: 'finished', status, reason, usage: turn.usage });
      });
  }

  cancelResponse(responseId: string): void {
    if (this.responseId === responseId) this.bargeIn();
  }

  private answer(itemId: string, transcript: string): void {
    if (this.config.type !== 'live' || this.config.conversation === true || this.stopping || transcript.trim() === '')
      return;
    this.bargeIn();
    this.conversation.addUser(transcript.trim());
    const turn = new CascadeTurn(this.conversation.messages(), {
      ...this.deps,
      newItemId: () => newId('item'),
      emit: (event) => {
        if (this.turn === turn) this.emit(event);
      },
    });
    this.conversation.addAssistant(() => turn.spokenText());
    this.turn = turn;
    this.answering = itemId;
    turn.finished
      .catch((error: unknown) => this.deps.error(`cascade turn failed: ${String(error)}`))
      .finally(() => {
        if (this.turn === turn) this.turn = null;
      });
  }

  private bargeIn(): void {
    const turn = this.turn;
    if (!turn) return;
    // cancel() first: its response_done reaches the session (it ends a response the session did not cut).
    turn.cancel();
    this.turn = null;
    this.responseId = null;
  }

  /** A response's sink belongs to the session too: a throw there must not become an unhandled rejection. */
  private guarded(sink: ResponseSink): ResponseSink {
    return (event) => {
      if (this.closed) return;
      try {
        sink(event);
      } catch (error) {
        this.deps.error(`cascade stream ${this.config.sessionId}: response sink threw: ${String(error)}`);
      }
    };
  }

  /** The sink belongs to the session; its failure must not break this stream. */
  private emit(event: EngineEvent): void {
    if (this.closed) return;
    try {
      this.sink(event);
    } catch (error) {
      this.deps.error(`cascade stream ${this.config.sessionId}: event sink threw: ${String(error)}`);
    }
  }
}
