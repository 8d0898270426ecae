/**
 * The outbound half of the live dialect: neutral events → live server frames, exactly per the
 * convention. One renderer per socket: it numbers the server `event_id`s and remembers the
 * session's output encoding. Output audio, the per-frame case, is built as a string directly.
 */
import type {
  LiveError,
  LiveServerEvent,
  LiveSessionResource,
  LiveSessionStats,
  LiveTurnEvent,
} from '../../../../libs/protocol/live-events';
import type { EventRenderer } from '../../../session-core';
import type { ServerEvent } from '../../../session-core';
import {
  assertUnreachable,
  type OutputEncoding,
  type SessionDescriptor,
  type SessionError,
  type SessionStats,
} from '../../../session-core';

export class LiveRenderer implements EventRenderer {
  private sequence = 0;
  private encoding: OutputEncoding = 'base64';
  private lastItemId = '';
  private lastItemJson = '""';

  render(event: ServerEvent): string | Buffer | null {
    switch (event.type) {
      case 'output_audio':
        if (this.encoding === 'binary') return event.pcm;
        return `{"type":"session.output_audio.delta","item_id":${this.itemJson(event.itemId)},"delta":"${event.pcm.toString('base64')}","start_ms":${event.startMs},"end_ms":${event.endMs}}`;
      case 'started':
        this.encoding = event.session.config.outputEncoding;
        return this.json({
          type: 'session.started',
          event_id: this.nextId(),
          ...echo(event.clientEventId),
          session: resource(event.session),
        });
      case 'updated':
        return this.json({
          type: 'session.updated',
          event_id: this.nextId(),
          ...echo(event.clientEventId),
          session: resource(event.session),
        });
      case 'muted':
        return this.json({ type: 'session.input_audio.muted', event_id: this.nextId(), ...echo(event.clientEventId) });
      case 'unmuted':
        return this.json({
          type: 'session.input_audio.unmuted',
          event_id: this.nextId(),
          ...echo(event.clientEventId),
        });
      case 'input_committed':
      case 'input_cleared':
        return null; // the live convention has no commit/clear; only other dialects show these
      case 'input_transcript':
      case 'output_transcript': {
        const type =
          event.type === 'input_transcript' ? 'session.input_transcript.delta' : 'session.output_transcript.delta';
        const { itemId, delta, done, transcript } = event;
        // The SDK's TranscriptGrouper throws unless these are non-negative integers with end >= start.
        const startMs = ms(event.startMs);
        const base = {
          type,
          event_id: this.nextId(),
          item_id: itemId,
          delta,
          start_ms: startMs,
          end_ms: Math.max(startMs, ms(event.endMs)),
          done,
        } as const;
        return this.json(transcript === undefined ? base : { ...base, transcript });
      }
      case 'speech_started':
        return this.turn({ type: 'speech_started', item_id: event.itemId, start_ms: ms(event.startMs) });
      case 'speech_stopped':
        return this.turn({ type: 'speech_stopped', item_id: event.itemId, end_ms: ms(event.endMs) });
      case 'turn':
        return this.userTurn(event);
      case 'response_started':
        return this.turn({ type: 'response_started', item_id: event.itemId });
      case 'response_done':
        return this.turn({ type: 'response_done', item_id: event.itemId, interrupted: event.interrupted });
      case 'usage':
        return this.json({ type: 'session.usage.updated', event_id: this.nextId(), usage: { ...event.usage } });
      case 'warning': {
        const type =
          event.code === 'output_audio_dropped' ? 'session.output_audio.warning' : 'session.input_audio.warning';
        return this.json({ type, event_id: this.nextId(), code: event.code, message: event.message });
      }
      case 'error':
        return this.json({
          type: 'error',
          event_id: this.nextId(),
          ...echo(event.error.clientEventId),
          error: liveError(event.error),
        });
      case 'closed':
        return this.json({
          type: 'session.closed',
          event_id: this.nextId(),
          ...echo(event.clientEventId),
          reason: event.reason,
          session: resource(event.session),
          usage: { ...event.usage },
          detail: event.detail,
          stats: liveStats(event.stats),
        });
      default:
        return assertUnreachable(event);
    }
  }

  private nextId(): string {
    return `evt_${++this.sequence}`;
  }

  /** Updates are for transcription dialects; the live transcript deltas already carry the words. */
  private userTurn(event: Extract<ServerEvent, { type: 'turn' }>): string | null {
    const item_id = event.itemId;
    switch (event.phase) {
      case 'update':
        return null;
      case 'eager_end':
        return this.turn({
          type: 'eager_end_of_turn',
          item_id,
          confidence: event.confidence,
          transcript: event.transcript,
        });
      case 'resumed':
        return this.turn({ type: 'turn_resumed', item_id });
      case 'end':
        return this.turn({
          type: 'end_of_turn',
          item_id,
          confidence: event.confidence,
          trigger: event.trigger ?? 'model',
        });
    }
  }

  private turn(event: LiveTurnEvent): string {
    return this.json({ type: 'session.turn.event', event_id: this.nextId(), event });
  }

  private json(event: LiveServerEvent): string {
    return JSON.stringify(event);
  }

  private itemJson(itemId: string): string {
    if (itemId !== this.lastItemId) {
      this.lastItemId = itemId;
      this.lastItemJson = JSON.stringify(itemId);
    }
    return this.lastItemJson;
  }
}

function ms(value: number): number {
  return Math.max(0, Math.round(value));
}

function echo(clientEventId: string | undefined): { client_event_id?: string } {
  return clientEventId === undefined ? {} : { client_event_id: clientEventId };
}

export function resource(session: SessionDescriptor): LiveSessionResource {
  const { config } = session;
  return {
    id: session.id,
    object: 'session',
    type: config.type,
    model: config.model,
    status: 'active',
    expires_at: Math.ceil(session.expiresAtMs / 1000),
    audio: {
      format: { type: 'audio/pcm', rate: 24000 },
      ...(config.voice === null ? {} : { output: { voice: config.voice, encoding: config.outputEncoding } }),
    },
    instructions: null,
    input: [],
    delegation: { type: 'client' },
    store: false,
  };
}

function liveError(error: SessionError): LiveError {
  const type = error.origin === 'server' ? 'server_error' : 'invalid_request_error';
  const base = { type, code: error.code, message: error.message, param: error.param } as const;
  return error.clientEventId === undefined ? base : { ...base, client_event_id: error.clientEventId };
}

function liveStats(stats: SessionStats): LiveSessionStats {
  return {
    duration_ms: stats.durationMs,
    input_frames: stats.inputFrames,
    muted_frames: stats.mutedFrames,
    dropped_input_ms: stats.droppedInputMs,
    output_frames: stats.outputFrames,
    output_dropped_frames: stats.outputDroppedFrames,
    turns: stats.turns,
    responses: stats.responses,
    interruptions: stats.interruptions,
    warnings: stats.warnings,
    errors: stats.errors,
  };
}
