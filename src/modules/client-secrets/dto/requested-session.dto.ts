import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsIn, IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';
import { OptionalField } from '../../../platform/validation/request-field.validators';
import { AudioRequestDto, RealtimeAudioRequestDto } from './requested-audio.dto';

/** A function the model may call; the client runs it and returns its output (GA `RealtimeFunctionTool`). */
@ApiSchema({ name: 'RealtimeFunctionToolRequest' })
export class RealtimeFunctionToolRequestDto {
  @ApiProperty({ enum: ['function'] })
  type: 'function';
  /** 1 to 64 letters, digits, `_` or `-`; unique among the session's tools. */
  @ApiProperty({ pattern: '^[A-Za-z0-9_-]{1,64}$' })
  name: string;
  @ApiPropertyOptional({ maxLength: 100_000 })
  description?: string;
  /** A JSON Schema object for the arguments; default: an object without properties. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  parameters?: Record<string, unknown>;
}

/**
 * `{"type":"function","name":...}` forces that tool. The string choices are `auto`, `none` and
 * `required`.
 */
@ApiSchema({ name: 'RealtimeToolChoiceFunctionRequest' })
export class RealtimeToolChoiceFunctionRequestDto {
  @ApiProperty({ enum: ['function'] })
  type: 'function';
  name: string;
}

// The conversation fields below (type "realtime" only) carry no class-validator rules of their own:
// `@Allow()` lets them through the whitelist, and ClientSecretsService holds them to the session
// core's settings rules, the socket's session.update's too, so that a secret and the socket agree.

@ApiSchema({ name: 'RequestedSession' })
export class RequestedSessionDto {
  /**
   * Default `live`, or the type of the requested model. On the realtime path: `transcription` (the
   * default there), or `realtime` (OpenAI's GA name) for a conversation session, a `live` session
   * on `vendor-voicechat`.
   */
  @ApiPropertyOptional({ enum: ['live', 'transcription', 'realtime'], default: 'live' })
  @OptionalField()
  @IsIn(['live', 'transcription', 'realtime'])
  type?: 'live' | 'transcription' | 'realtime';
  /** Defaults to the type's model: `vendor-voicechat` (live), `vendor-asr-streaming` (transcription). */
  @OptionalField()
  @MaxLength(64)
  @IsString()
  model?: string;
  /** Accepted for compatibility with the OpenAI SDK; log probabilities are not produced. */
  @ApiPropertyOptional({ enum: ['item.input_audio_transcription.logprobs'], isArray: true })
  @OptionalField()
  @ArrayMaxSize(8)
  @IsIn(['item.input_audio_transcription.logprobs'], { each: true })
  @IsArray()
  include?: string[];
  // Type `realtime`: OpenAI's GA fields and ranges (semantic_vad, output speed…), as its socket takes them.
  @OptionalField()
  @Type((help) =>
    (help?.object as { type?: unknown })?.type === 'realtime' ? RealtimeAudioRequestDto : AudioRequestDto,
  )
  @ValidateNested()
  @IsObject()
  audio?: AudioRequestDto;
  /**
   * Type `realtime` only: the system instructions of the conversation (at most 100,000 characters).
   * This and the fields below are what a Realtime `session.update` accepts, checked by the same rules;
   * the client may still change them with a `session.update` of its own.
   */
  @ApiPropertyOptional({ maxLength: 100_000 })
  @Allow()
  instructions?: string;
  /** Type `realtime` only: function tools (at most 128). Refused when the model's engine cannot call tools. */
  @ApiPropertyOptional({ type: () => [RealtimeFunctionToolRequestDto], maxItems: 128 })
  @Allow()
  tools?: RealtimeFunctionToolRequestDto[];
  /** Type `realtime` only: `auto` (default), `none`, `required`, or a function to call. */
  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['auto', 'none', 'required'] },
      { $ref: '#/components/schemas/RealtimeToolChoiceFunctionRequest' },
    ],
  })
  @Allow()
  tool_choice?: 'auto' | 'none' | 'required' | RealtimeToolChoiceFunctionRequestDto;
  /** Type `realtime` only: `["audio"]` (default; the transcript is the text) or `["text"]`. */
  @ApiPropertyOptional({ type: [String], enum: ['audio', 'text'], minItems: 1, maxItems: 1 })
  @Allow()
  output_modalities?: ('audio' | 'text')[];
  /** Type `realtime` only: tokens per response, 1..4096, or `inf` (the engine's own limit, the default). */
  @ApiPropertyOptional({
    oneOf: [
      { type: 'integer', minimum: 1, maximum: 4096 },
      { type: 'string', enum: ['inf'] },
    ],
  })
  @Allow()
  max_output_tokens?: number | 'inf';
  /** Type `realtime` only: accepted for compatibility (`auto`, an object, or null); there is no tracing here. */
  @ApiProperty({ required: false, nullable: true, oneOf: [{ type: 'string', enum: ['auto'] }, { type: 'object' }] })
  @Allow()
  tracing?: 'auto' | Record<string, unknown> | null;
  /** Type `realtime` only: `auto` is the one truncation served. */
  @ApiPropertyOptional({ enum: ['auto'] })
  @Allow()
  truncation?: 'auto';
  /** Type `realtime` only: null. Stored prompts live on OpenAI; send their text as `instructions`. */
  @ApiProperty({ required: false, nullable: true, type: Object })
  @Allow()
  prompt?: Record<string, unknown> | null;
}

/** The fields of a `type: "realtime"` session that configure its conversation, stored with its secret. */
export const CONVERSATION_FIELDS = [
  'instructions',
  'tools',
  'tool_choice',
  'output_modalities',
  'max_output_tokens',
  'tracing',
  'truncation',
  'prompt',
] as const satisfies readonly (keyof RequestedSessionDto)[];
