import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { AudioResponseDto } from '../../sessions';
import { FRAME_BYTES, FRAME_MS, SAMPLE_RATE } from '../../../session-core';

@ApiSchema({ name: 'IngressAudioResponse' })
export class IngressAudioResponseDto {
  /** Sample encoding, both ways: `pcm16` (little-endian, mono). */
  encoding: string;
  sample_rate: number;
  channels: number;
  /** Audio is metered (and best sent) in frames of this length. */
  frame_ms: number;
  /** Bytes of one frame of pcm16 at the sample rate. */
  frame_bytes: number;
}

@ApiSchema({ name: 'IngressUrlsResponse' })
export class IngressUrlsResponseDto {
  /** OpenAI Realtime-compatible socket (`?intent=transcription`); transcription sessions only. */
  @ApiProperty({ type: String, nullable: true })
  realtime: string | null;
  /** Deepgram-compatible socket; transcription sessions only. */
  @ApiProperty({ type: String, nullable: true })
  listen: string | null;
  /**
   * Deepgram Flux-compatible socket (turn-taking transcription: `Connected`, `TurnInfo` with
   * StartOfTurn/Update/EagerEndOfTurn/TurnResumed/EndOfTurn, `Configure`, `ForceEndTurn`); transcription
   * sessions only. Its messages are described in docs/api.md.
   */
  @ApiProperty({ type: String, nullable: true })
  listen_v2: string | null;
}

/** How to bring audio into the session. */
@ApiSchema({ name: 'IngressResponse' })
export class IngressResponseDto {
  @ApiProperty({ enum: ['websocket'] })
  transport: 'websocket';
  /**
   * Query parameter that carries the URL-encoded secret: open `<live_url>?token=<secret>`. A client that
   * can set headers may send `Authorization: Bearer <secret>` instead.
   */
  token_query_parameter: string;
  audio: IngressAudioResponseDto;
  /** The session ends (reason `expired`) this long after it starts. */
  max_session_seconds: number;
  /** Other sockets the same secret opens. */
  compatible_urls: IngressUrlsResponseDto;
}

@ApiSchema({ name: 'RealtimeFunctionToolResponse' })
export class RealtimeFunctionToolResponseDto {
  @ApiProperty({ enum: ['function'] })
  type: 'function';
  name: string;
  description: string;
  /** The JSON Schema of its arguments. */
  @ApiProperty({ type: 'object', additionalProperties: true })
  parameters: Record<string, unknown>;
}

@ApiSchema({ name: 'RealtimeToolChoiceFunctionResponse' })
export class RealtimeToolChoiceFunctionResponseDto {
  @ApiProperty({ enum: ['function'] })
  type: 'function';
  name: string;
}

@ApiSchema({ name: 'ClientSecretSessionResponse' })
export class ClientSecretSessionResponseDto {
  /** The session's id (`sess_…`). */
  id: string;
  /**
   * `session`; on the realtime path `realtime.transcription_session`, or `realtime.session` for a
   * conversation (`type: "realtime"` asked), as OpenAI's SDK expects.
   */
  @ApiProperty({ enum: ['session', 'realtime.transcription_session', 'realtime.session'] })
  object: string;
  @ApiProperty({ enum: ['live', 'transcription'] })
  type: 'live' | 'transcription';
  model: string;
  pool: string;
  region: string;
  /** The resolved audio configuration. */
  @ApiProperty({ type: () => AudioResponseDto })
  audio: AudioResponseDto;
  /** Absolute WebSocket address (wss:// or ws://) to open with the secret. */
  live_url: string;
  ingress: IngressResponseDto;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata: Record<string, string>;
  /**
   * Conversation secrets only (`object: "realtime.session"`), like the four fields after it: the
   * settings the session starts with, as OpenAI's secret and `session.created` show them. The system
   * instructions (default empty).
   */
  instructions?: string;
  /** Conversation secrets only: the function tools. */
  @ApiPropertyOptional({ type: () => [RealtimeFunctionToolResponseDto] })
  tools?: RealtimeFunctionToolResponseDto[];
  /** Conversation secrets only: `auto`, `none`, `required`, or the function to call. */
  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['auto', 'none', 'required'] },
      { $ref: '#/components/schemas/RealtimeToolChoiceFunctionResponse' },
    ],
  })
  tool_choice?: 'auto' | 'none' | 'required' | RealtimeToolChoiceFunctionResponseDto;
  /** Conversation secrets only: `["audio"]` or `["text"]`. */
  @ApiPropertyOptional({ type: [String], enum: ['audio', 'text'] })
  output_modalities?: ('audio' | 'text')[];
  /** Conversation secrets only: tokens per response, or `inf`. */
  @ApiPropertyOptional({ oneOf: [{ type: 'integer' }, { type: 'string', enum: ['inf'] }] })
  max_output_tokens?: number | 'inf';
}

@ApiSchema({ name: 'ClientSecretResponse' })
export class ClientSecretResponseDto {
  /** The client secret (`ek_…`). Shown once; only its SHA-256 is stored. */
  value: string;
  /** Unix seconds when the secret lapses unless it opened its session. */
  @ApiProperty({ type: 'integer' })
  expires_at: number;
  session: ClientSecretSessionResponseDto;
}

export function toIngressResponse(
  type: 'live' | 'transcription',
  urls: { realtime: string; listen: string; listenV2: string },
  maxSessionSeconds: number,
): IngressResponseDto {
  const transcription = type === 'transcription';
  return {
    transport: 'websocket',
    token_query_parameter: 'token',
    audio: { encoding: 'pcm16', sample_rate: SAMPLE_RATE, channels: 1, frame_ms: FRAME_MS, frame_bytes: FRAME_BYTES },
    max_session_seconds: maxSessionSeconds,
    compatible_urls: {
      realtime: transcription ? urls.realtime : null,
      listen: transcription ? urls.listen : null,
      listen_v2: transcription ? urls.listenV2 : null,
    },
  };
}
