/**
 * The outbound half of a Realtime conversation session: the conversation model's events and the
 * session's own (start, speech, transcripts, the paced voice, errors, the end) → GA server events.
 * It numbers the `event_id`s of every frame the socket sends, so it renders both in one sequence.
 */
import type {
  ContentPart,
  ConversationEvent,
  ConversationItem,
  OutputRef,
  ResponseView,
  SessionDescriptor,
  ConversationSettings,
} from '../../../../session-core';
import { realtimeSettingsView } from '../../../../session-core';
import { closingError, realtimeError } from '../realtime.render';
import type { ConversationView } from './conversation.session-update';
import { PCM16_FORMATS, realtimeFormatJson, type AudioFormatName } from '../../../../platform/audio/audio-format';

type Json = Record<string, unknown>;

export class ConversationRenderer {
  /** The session's output format, which its responses' audio is in. */
  constructor(private readonly outputFormat: () => AudioFormatName = () => 'pcm16') {}

  private sequence = 0;

  frame(event: Json): string {
    return JSON.stringify({ type: event.type, event_id: `event_${++this.sequence}`, ...withoutType(event) });
  }

  /** One conversation event as its frames (most are one). */
  conversation(event: ConversationEvent): string {
    switch (event.type) {
      case 'item_added':
        return this.frame({
          type: 'conversation.item.added',
          previous_item_id: event.previousItemId,
          item: itemJson(event.item),
        });
      case 'item_done':
        return this.frame({
          type: 'conversation.item.done',
          previous_item_id: event.previousItemId,
          item: itemJson(event.item),
        });
      case 'item_retrieved':
        return this.frame({ type: 'conversation.item.retrieved', item: itemJson(event.item) });
      case 'item_deleted':
        return this.frame({ type: 'conversation.item.deleted', item_id: event.itemId });
      case 'item_truncated':
        return this.frame({
          type: 'conversation.item.truncated',
          item_id: event.itemId,
          content_index: event.contentIndex,
          audio_end_ms: event.audioEndMs,
        });
      case 'input_speech_started':
        return this.frame({
          type: 'input_audio_buffer.speech_started',
          item_id: event.itemId,
          audio_start_ms: Math.max(0, Math.round(event.audioStartMs)),
        });
      case 'input_speech_stopped':
        return this.frame({
          type: 'input_audio_buffer.speech_stopped',
          item_id: event.itemId,
          audio_end_ms: Math.max(0, Math.round(event.audioEndMs)),
        });
      case 'input_committed':
        return this.frame({
          type: 'input_audio_buffer.committed',
          item_id: event.itemId,
          previous_item_id: event.previousItemId,
        });
      case 'input_cleared':
        return this.frame({ type: 'input_audio_buffer.cleared' });
      case 'input_timeout':
        return this.frame({
          type: 'input_audio_buffer.timeout_triggered',
          item_id: event.itemId,
          audio_start_ms: Math.round(event.audioStartMs),
          audio_end_ms: Math.round(event.audioEndMs),
        });
      case 'input_transcript_delta':
        return this.frame({
          type: 'conversation.item.input_audio_transcription.delta',
          item_id: event.itemId,
          content_index: 0,
          delta: event.delta,
        });
      case 'input_transcript_done':
        return this.frame({
          type: 'conversation.item.input_audio_transcription.completed',
          item_id: event.itemId,
          content_index: 0,
          transcript: event.transcript,
          usage: { type: 'duration', seconds: event.seconds },
        });
      case 'response_created':
        return this.frame({ type: 'response.created', response: responseJson(event.response, this.outputFormat()) });
      case 'response_done':
        return this.frame({ type: 'response.done', response: responseJson(event.response, this.outputFormat()) });
      case 'output_item_added':
      case 'output_item_done':
        return this.frame({
          type: event.type === 'output_item_added' ? 'response.output_item.added' : 'response.output_item.done',
          response_id: event.responseId,
          output_index: event.outputIndex,
          item: itemJson(event.item),
        });
      case 'content_part_added':
      case 'content_part_done':
        return this.frame({
          type: event.type === 'content_part_added' ? 'response.content_part.added' : 'response.content_part.done',
          ...refJson(event.ref),
          part: partJson(event.part),
        });
      case 'output_text_delta':
        return this.frame({
          type: event.audio ? 'response.output_audio_transcript.delta' : 'response.output_text.delta',
          ...refJson(event.ref),
          delta: event.delta,
        });
      case 'output_text_done':
        return this.frame({
          type: event.audio ? 'response.output_audio_transcript.done' : 'response.output_text.done',
          ...refJson(event.ref),
          [event.audio ? 'transcript' : 'text']: event.text,
        });
      case 'output_audio_delta':
        return this.frame({
          type: 'response.output_audio.delta',
          ...refJson(event.ref),
          delta: event.pcm.toString('base64'),
        });
      case 'output_audio_done':
        return this.frame({ type: 'response.output_audio.done', ...refJson(event.ref) });
      case 'function_call_arguments_delta':
        return this.frame({
          type: 'response.function_call_arguments.delta',
          response_id: event.ref.responseId,
          item_id: event.ref.itemId,
          output_index: event.ref.outputIndex,
          call_id: event.callId,
          delta: event.delta,
        });
      case 'function_call_arguments_done':
        return this.frame({
          type: 'response.function_call_arguments.done',
          response_id: event.ref.responseId,
          item_id: event.ref.itemId,
          output_index: event.ref.outputIndex,
          call_id: event.callId,
          name: event.name,
          arguments: event.arguments,
        });
      case 'error':
        return this.frame({ type: 'error', error: realtimeError(event.error) });
    }
  }

  session(
    type: 'session.created' | 'session.updated',
    session: SessionDescriptor,
    settings: ConversationSettings,
    view: ConversationView,
  ): string {
    return this.frame({ type, session: sessionJson(session, settings, view) });
  }

  /**
   * OpenAI sends the limits in force at each response's start. The one that binds a socket here is its
   * control-message bucket (`requests`); tokens are not limited per socket.
   */
  rateLimits(allowance: { limit: number; remaining: number; resetSeconds: number }): string {
    const { limit, remaining, resetSeconds } = allowance;
    return this.frame({
      type: 'rate_limits.updated',
      rate_limits: [{ name: 'requests', limit, remaining, reset_seconds: Math.round(resetSeconds * 100) / 100 }],
    });
  }

  closing(event: Parameters<typeof closingError>[0]): string | null {
    const why = closingError(event);
    return why === null ? null : this.frame({ type: 'error', error: why });
  }
}

/** The session as `session.created` / `session.updated` show it (GA `RealtimeSessionCreateRequest`). */
export function sessionJson(session: SessionDescriptor, settings: ConversationSettings, view: ConversationView): Json {
  const formats = session.config.audioFormats ?? PCM16_FORMATS;
  return {
    type: 'realtime',
    object: 'realtime.session',
    id: session.id,
    model: view.model,
    ...settingsJson(settings),
    tracing: view.tracing ?? null,
    prompt: null,
    truncation: 'auto',
    include: null,
    audio: {
      input: {
        format: realtimeFormatJson(formats.input),
        noise_reduction: null,
        transcription: view.transcriptionModel === null ? null : { model: view.transcriptionModel },
        turn_detection: view.turnDetection,
      },
      output: { format: realtimeFormatJson(formats.output), voice: view.voice, speed: 1 },
    },
    expires_at: Math.ceil(session.expiresAtMs / 1000),
  };
}

/** The conversation's settings as a GA session shows them (also in a client secret's response). */
/** The settings in Realtime's words: the session core's view (session-core/settings/realtime.view.ts). */
export const settingsJson: (settings: ConversationSettings) => Json = realtimeSettingsView;

export function responseJson(response: ResponseView, outputFormat: AudioFormatName = 'pcm16'): Json {
  const format = realtimeFormatJson(outputFormat);
  const ended = response.status !== 'in_progress' && response.status !== 'completed';
  return {
    object: 'realtime.response',
    id: response.id,
    status: response.status,
    status_details: ended ? { type: response.status, reason: response.reason ?? undefined } : null,
    output: response.output.map(itemJson),
    conversation_id: response.conversation === 'none' ? null : 'conv_default',
    output_modalities: [response.audio ? 'audio' : 'text'],
    audio: { output: { format, voice: 'aria' } },
    metadata: response.metadata,
    usage:
      response.status === 'in_progress'
        ? null
        : {
            total_tokens: (response.usage?.inputTokens ?? 0) + (response.usage?.outputTokens ?? 0),
            input_tokens: response.usage?.inputTokens ?? 0,
            output_tokens: response.usage?.outputTokens ?? 0,
            input_token_details: {
              text_tokens: response.usage?.inputTokens ?? 0,
              audio_tokens: 0,
              image_tokens: 0,
              cached_tokens: 0,
            },
            output_token_details: { text_tokens: response.usage?.outputTokens ?? 0, audio_tokens: 0 },
          },
  };
}

export function itemJson(item: ConversationItem): Json {
  switch (item.type) {
    case 'message':
      return {
        id: item.id,
        object: 'realtime.item',
        type: 'message',
        status: item.status,
        role: item.role,
        content: item.content.map((part) => ({ ...part })),
      };
    case 'function_call':
      return {
        id: item.id,
        object: 'realtime.item',
        type: 'function_call',
        status: item.status,
        call_id: item.callId,
        name: item.name,
        arguments: item.arguments,
      };
    case 'function_call_output':
      return {
        id: item.id,
        object: 'realtime.item',
        type: 'function_call_output',
        status: item.status,
        call_id: item.callId,
        output: item.output,
      };
  }
}

/** A content part as the response.content_part events carry it (`text` or `audio`). */
function partJson(part: ContentPart): Json {
  switch (part.type) {
    case 'output_audio':
      return { type: 'audio', transcript: part.transcript };
    case 'output_text':
      return { type: 'text', text: part.text };
    default:
      return { ...part };
  }
}

function refJson(ref: OutputRef): Json {
  return {
    response_id: ref.responseId,
    item_id: ref.itemId,
    output_index: ref.outputIndex,
    content_index: ref.contentIndex,
  };
}

function withoutType(event: Json): Json {
  const { type: _type, ...rest } = event;
  return rest;
}
