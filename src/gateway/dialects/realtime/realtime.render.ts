/**
 * The outbound half of the Realtime dialect: neutral events → GA transcription server events.
 * One renderer per socket: it numbers the server `event_id`s and keeps the item ids (RealtimeItems).
 * What Realtime has no event for (usage, warnings, mute) is not shown; usage travels in each
 * `…completed` as `{type:"duration"}` and over REST.
 */
import type { EventRenderer, RenderedFrames } from '../../../session-core';
import type { ServerEvent } from '../../../session-core';
import { assertUnreachable, serverVadView, type SessionDescriptor, type SessionError } from '../../../session-core';
import { RealtimeItems, type Committed } from './realtime.items';
import { TRANSCRIPTION_MODEL } from '../../../engines';
import { realtimeFormatJson } from '../../../platform/audio/audio-format';

type Json = Record<string, unknown>;

/** OpenAI's names for refusals the session core makes under its own. */
const OPENAI_CODES: Readonly<Record<string, string>> = {
  input_audio_buffer_empty: 'input_audio_buffer_commit_empty',
};

export class RealtimeRenderer implements EventRenderer {
  private sequence = 0;
  private readonly items: RealtimeItems;

  constructor(sessionId: string) {
    this.items = new RealtimeItems(sessionId.replace(/^sess_/, 'item_'));
  }

  render(event: ServerEvent): RenderedFrames | null {
    switch (event.type) {
      case 'input_transcript': {
        if (!event.done) {
          if (event.delta === '') return null;
          const itemId = this.items.idOf(event.itemId);
          return this.json({
            type: 'conversation.item.input_audio_transcription.delta',
            event_id: this.nextId(),
            item_id: itemId,
            content_index: 0,
            delta: event.delta,
          });
        }
        const { itemId, committed } = this.items.complete(event.itemId);
        const completed = this.json({
          type: 'conversation.item.input_audio_transcription.completed',
          event_id: this.nextId(),
          item_id: itemId,
          content_index: 0,
          transcript: event.transcript ?? event.delta,
          usage: { type: 'duration', seconds: Math.max(0, event.endMs - event.startMs) / 1000 },
        });
        return committed === null ? completed : [this.committed(committed), completed];
      }
      case 'speech_started':
        return this.json({
          type: 'input_audio_buffer.speech_started',
          event_id: this.nextId(),
          item_id: this.items.idOf(event.itemId),
          audio_start_ms: Math.max(0, Math.round(event.startMs)),
        });
      case 'speech_stopped': {
        const committed = this.items.commitEngineItem(event.itemId);
        const stopped = this.json({
          type: 'input_audio_buffer.speech_stopped',
          event_id: this.nextId(),
          item_id: this.items.idOf(event.itemId),
          audio_end_ms: Math.max(0, Math.round(event.endMs)),
        });
        return committed === null ? stopped : [stopped, this.committed(committed)];
      }
      case 'input_committed':
        return this.committed(this.items.commitOpen());
      case 'input_cleared':
        this.items.clear();
        return this.json({ type: 'input_audio_buffer.cleared', event_id: this.nextId() });
      case 'started':
        return this.json({
          type: 'session.created',
          event_id: this.nextId(),
          session: transcriptionSession(event.session),
        });
      case 'updated':
        return this.json({
          type: 'session.updated',
          event_id: this.nextId(),
          session: transcriptionSession(event.session),
        });
      case 'error':
        // A client event refused because the session is ending is answered by the end's own error,
        // after the last transcripts: clients (LiveKit's plugin) take the first error as fatal.
        if (event.error.code === 'session_closed') return null;
        return this.json({ type: 'error', event_id: this.nextId(), error: realtimeError(event.error) });
      case 'closed':
        return this.closed(event);
      case 'turn': // Realtime turn detection is OpenAI's server_vad: no end-of-turn confidence events
      case 'usage':
      case 'warning':
      case 'muted':
      case 'unmuted':
      case 'response_started':
      case 'response_done':
      case 'output_transcript':
      case 'output_audio':
        return null;
      default:
        return assertUnreachable(event);
    }
  }

  /** Unfinished items fail, and an end the client did not ask for is explained (OpenAI's `session_expired`). */
  private closed(event: Extract<ServerEvent, { type: 'closed' }>): RenderedFrames | null {
    const frames = this.items.unfinished().map((itemId) =>
      this.json({
        type: 'conversation.item.input_audio_transcription.failed',
        event_id: this.nextId(),
        item_id: itemId,
        content_index: 0,
        error: { type: 'server_error', code: 'session_ended', message: 'the session ended before the transcript' },
      }),
    );
    const why = closingError(event);
    if (why !== null) frames.push(this.json({ type: 'error', event_id: this.nextId(), error: why }));
    return frames.length === 0 ? null : frames;
  }

  private committed(committed: Committed): string {
    return this.json({
      type: 'input_audio_buffer.committed',
      event_id: this.nextId(),
      item_id: committed.itemId,
      previous_item_id: committed.previousItemId,
    });
  }

  private nextId(): string {
    return `event_${++this.sequence}`;
  }

  private json(event: Json): string {
    return JSON.stringify(event);
  }
}

/** The effective configuration: no noise reduction, no logprobs and `auto` language are shown as OpenAI would. */
export function transcriptionSession(session: SessionDescriptor): Json {
  const { language, turnDetection } = session.config;
  return {
    id: session.id,
    object: 'realtime.transcription_session',
    type: 'transcription',
    audio: {
      input: {
        format: realtimeFormatJson(session.config.audioFormats?.input ?? 'pcm16'),
        noise_reduction: null,
        // OpenAI has no "auto": the language is left out to detect it.
        transcription: language === 'auto' ? { model: TRANSCRIPTION_MODEL } : { model: TRANSCRIPTION_MODEL, language },
        turn_detection: turnDetection === null ? null : serverVadView(turnDetection),
      },
    },
    expires_at: Math.ceil(session.expiresAtMs / 1000),
    include: [],
  };
}

export function realtimeError(error: SessionError): Json {
  return {
    type: error.origin === 'server' ? 'server_error' : 'invalid_request_error',
    code: OPENAI_CODES[error.code] ?? error.code,
    message: error.message,
    param: error.param,
    event_id: error.clientEventId ?? null,
  };
}

export function closingError(event: Extract<ServerEvent, { type: 'closed' }>): Json | null {
  const seconds = Math.round((event.session.expiresAtMs - event.session.startedAtMs) / 1000);
  switch (event.detail) {
    case 'max_duration_reached':
      return {
        type: 'invalid_request_error',
        code: 'session_expired',
        message: `Your session hit the maximum duration of ${seconds} seconds.`,
        param: null,
        event_id: null,
      };
    case 'session_deleted':
      return {
        type: 'invalid_request_error',
        code: 'session_deleted',
        message: 'The session was deleted.',
        param: null,
        event_id: null,
      };
    case 'key_revoked':
      return {
        type: 'invalid_request_error',
        code: 'key_revoked',
        message: 'The API key that opened this session was revoked.',
        param: null,
        event_id: null,
      };
    case 'idle_timeout':
      return {
        type: 'invalid_request_error',
        code: 'idle_timeout',
        message: 'No input audio for the idle time: the session ended.',
        param: null,
        event_id: null,
      };
    // The client's own ends need no word; after a broken limit or a fault an `error` has already said why.
    case 'client_requested':
    case 'client_disconnected':
    case 'control_rate_exceeded':
    case 'held_events_exceeded':
    case 'internal_error':
      return null;
    default:
      return { type: 'server_error', code: event.detail, message: 'The session ended.', param: null, event_id: null };
  }
}
