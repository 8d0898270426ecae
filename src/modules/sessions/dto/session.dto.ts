import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { microsToUsd } from '../../../platform/money';
import { toUnixSeconds, toUnixSecondsOrNull } from '../../../platform/time';
import { FRAME_MS } from '../../../session-core';
import {
  CLOSE_REASONS,
  SESSION_STATUSES,
  SESSION_TRANSPORTS,
  type CloseReason,
  type SessionEntity,
  type SessionStatus,
  type SessionTransport,
} from '../entities/session.entity';
import { AudioResponseDto, toSessionAudioResponse } from './session-audio.dto';

/**
 * The text tokens a conversation session's responses were billed for (the sum of their
 * `response.done.usage`: as the upstream reported them, else estimated), priced per model.
 */
@ApiSchema({
  name: 'SessionTokensResponse',
  description: "A conversation session's billed text tokens (reported by its upstream, else estimated).",
})
export class SessionTokensDto {
  /** Input (prompt) tokens over the session's responses. */
  @ApiProperty({ type: 'integer' })
  input_tokens: number;
  /** Output (completion) tokens over the session's responses. */
  @ApiProperty({ type: 'integer' })
  output_tokens: number;
}

@ApiSchema({ name: 'SessionUsageResponse' })
export class SessionUsageDto {
  /** Billable 80 ms frames of input audio. */
  @ApiProperty({ type: 'integer' })
  frames: number;
  /** frames × 0.08. */
  seconds: number;
  /** USD as a 6-place decimal string: the frames' cost and the tokens'. */
  cost_usd: string;
  /**
   * A conversation session's billed text tokens so far (the sum of its responses'
   * `response.done.usage`); null for a session that billed none.
   */
  @ApiProperty({ type: () => SessionTokensDto, nullable: true })
  tokens: SessionTokensDto | null;
}

@ApiSchema({ name: 'SessionResponse' })
export class SessionResponseDto {
  id: string;
  @ApiProperty({ enum: ['session'] })
  object: 'session';
  @ApiProperty({ enum: ['live', 'transcription'] })
  type: 'live' | 'transcription';
  model: string;
  /** `pending`: secret issued, socket not opened; `expired`: the secret lapsed unused. */
  @ApiProperty({ enum: SESSION_STATUSES, enumName: 'SessionStatus' })
  status: SessionStatus;
  pool: string;
  region: string;
  /**
   * How the session's media arrives: `websocket` (its dialect's socket), `webrtc` (a call to
   * `/v1/realtime/calls`), `twilio` (a carrier's media stream) or `batch` (one transcription request).
   */
  @ApiProperty({ enum: SESSION_TRANSPORTS, enumName: 'SessionTransport' })
  transport: SessionTransport;
  /** A call's own id (`rtc_…`), which the sideband and hang-up take; null for sessions that are not calls. */
  @ApiProperty({ type: String, nullable: true })
  call_id: string | null;
  /** Unix seconds. */
  @ApiProperty({ type: 'integer' })
  created_at: number;
  /** Unix seconds; when the socket opened the session. */
  @ApiProperty({ type: 'integer', nullable: true })
  started_at: number | null;
  /** Unix seconds. */
  @ApiProperty({ type: 'integer', nullable: true })
  ended_at: number | null;
  /** Unix seconds: when the session's client secret lapses (null for sessions opened with an API key). */
  @ApiProperty({ type: 'integer', nullable: true })
  expires_at: number | null;
  @ApiProperty({ enum: CLOSE_REASONS, enumName: 'CloseReason', nullable: true })
  close_reason: CloseReason | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata: Record<string, string>;
  /** The resolved configuration the session runs with. */
  @ApiProperty({ type: () => AudioResponseDto })
  audio: AudioResponseDto;
  usage: SessionUsageDto;
}

@ApiSchema({ name: 'SessionListResponse' })
export class SessionListResponseDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';
  /** Newest first. */
  data: SessionResponseDto[];
  has_more: boolean;
  /** Pass as `cursor` to get the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true })
  next_cursor: string | null;
}

/** Both columns are kept together by the meter; either null means none were billed. */
export function tokensOf(input: number | null, output: number | null): SessionTokensDto | null {
  return input === null || output === null ? null : { input_tokens: input, output_tokens: output };
}

/** `status` is the effective one: a pending session whose secret lapsed is already `expired`. */
export function toSessionResponse(session: SessionEntity, status: SessionStatus = session.status): SessionResponseDto {
  return {
    id: session.id,
    object: 'session',
    type: session.type,
    model: session.model,
    status,
    pool: session.pool,
    region: session.region,
    transport: session.transport,
    call_id: session.callId,
    created_at: toUnixSeconds(session.createdAt),
    started_at: toUnixSecondsOrNull(session.startedAt),
    ended_at: toUnixSecondsOrNull(session.endedAt),
    expires_at: toUnixSecondsOrNull(session.expiresAt),
    close_reason: session.closeReason,
    metadata: session.metadata,
    audio: toSessionAudioResponse(session.audio),
    usage: {
      frames: session.frames,
      seconds: (session.frames * FRAME_MS) / 1000,
      cost_usd: microsToUsd(session.costMicros),
      tokens: tokensOf(session.inputTokens, session.outputTokens),
    },
  };
}
