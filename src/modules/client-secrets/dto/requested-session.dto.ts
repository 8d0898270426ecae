import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  DEFAULT_END_OF_TURN,
  DEFAULT_LANGUAGE,
  DEFAULT_VAD,
  END_OF_TURN_BOUNDS,
  IDLE_TIMEOUT_MS,
  LANGUAGE_MAX_LENGTH,
  LANGUAGE_TAG,
  LIVE_VAD_BOUNDS,
  NOISE_REDUCTION,
  VOICE,
  type Bounds,
} from '../../../session-core';
import { NullableField, OptionalField } from '../../../platform/validation/request-field.validators';

/** A rule's bounds as the OpenAPI schema's (the swagger plugin reads only literal @Min/@Max). */
const range = ({ min, max }: Bounds) => ({ minimum: min, maximum: max });

// Validators run bottom-up and a 422 reports the first failure of each field, so each field's type
// check is written last: a value of the wrong type is reported as such, not as out of range.

@ApiSchema({ name: 'AudioFormatRequest' })
export class AudioFormatRequestDto {
  /**
   * `audio/pcm` (pcm16 little-endian, mono, 24 kHz). Realtime secrets also take `audio/pcmu` and
   * `audio/pcma` (G.711 at 8 kHz, for phone bridges).
   */
  @ApiPropertyOptional({ default: 'audio/pcm' })
  @OptionalField()
  @MaxLength(64)
  @IsString()
  type?: string;
  /** 24000 for `audio/pcm`, 8000 (or left out) for G.711; null means the format's own rate. */
  @ApiProperty({ type: 'integer', nullable: true, required: false, default: 24000 })
  @NullableField()
  @IsInt()
  rate?: number | null;
}

@ApiSchema({ name: 'NoiseReductionRequest' })
export class NoiseReductionRequestDto {
  /** Accepted for compatibility with the OpenAI SDK; no noise reduction is applied. */
  @ApiPropertyOptional({ enum: NOISE_REDUCTION.types })
  @OptionalField()
  @IsIn(NOISE_REDUCTION.types)
  type?: 'near_field' | 'far_field';
  @ApiPropertyOptional({ minimum: NOISE_REDUCTION.strength.min, maximum: NOISE_REDUCTION.strength.max })
  @OptionalField()
  @Max(NOISE_REDUCTION.strength.max)
  @Min(NOISE_REDUCTION.strength.min)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  strength?: number;
}

@ApiSchema({ name: 'TranscriptionRequest' })
export class TranscriptionRequestDto {
  /** `auto` (detect) or a language tag such as `en` or `en-US`. */
  @ApiPropertyOptional({
    default: DEFAULT_LANGUAGE,
    maxLength: LANGUAGE_MAX_LENGTH,
    pattern: LANGUAGE_TAG.source,
  })
  @OptionalField()
  @Matches(LANGUAGE_TAG)
  @MaxLength(LANGUAGE_MAX_LENGTH)
  @IsString()
  language?: string;
  /** Must be the session's model when given. */
  @OptionalField()
  @MaxLength(64)
  @IsString()
  model?: string;
  /** Free text that may guide recognition. */
  @OptionalField()
  @MaxLength(4096)
  @IsString()
  prompt?: string;
}

/** End-of-turn confidence (see docs/api.md): the thresholds a live session's turns end at. */
@ApiSchema({ name: 'EndOfTurnRequest' })
export class EndOfTurnRequestDto {
  /** Confidence (0.5..1) at which a turn ends; 1: turns end only on the timeout. */
  @ApiPropertyOptional({ default: DEFAULT_END_OF_TURN.eotThreshold, ...range(END_OF_TURN_BOUNDS.eotThreshold) })
  @OptionalField()
  @Max(END_OF_TURN_BOUNDS.eotThreshold.max)
  @Min(END_OF_TURN_BOUNDS.eotThreshold.min)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  eot_threshold?: number;
  /** Confidence (0.3..0.9) at which the answer starts being prepared (eager end of turn); null: never. */
  @ApiProperty({
    type: 'number',
    required: false,
    nullable: true,
    default: DEFAULT_END_OF_TURN.eagerEotThreshold,
    ...range(END_OF_TURN_BOUNDS.eagerEotThreshold),
  })
  @NullableField()
  @Max(END_OF_TURN_BOUNDS.eagerEotThreshold.max)
  @Min(END_OF_TURN_BOUNDS.eagerEotThreshold.min)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  eager_eot_threshold?: number | null;
  /** Silence (500..60000 ms) after which a turn ends whatever the confidence. */
  @ApiPropertyOptional({
    type: 'integer',
    default: DEFAULT_END_OF_TURN.eotTimeoutMs,
    ...range(END_OF_TURN_BOUNDS.eotTimeoutMs),
  })
  @OptionalField()
  @Max(END_OF_TURN_BOUNDS.eotTimeoutMs.max)
  @Min(END_OF_TURN_BOUNDS.eotTimeoutMs.min)
  @IsInt()
  eot_timeout_ms?: number;
}

@ApiSchema({ name: 'TurnDetectionRequest' })
export class TurnDetectionRequestDto {
  /** Voice-activity turn detection (the only kind). */
  @ApiPropertyOptional({ enum: ['server_vad'], default: 'server_vad' })
  @OptionalField()
  @IsIn(['server_vad'])
  type?: 'server_vad';
  /** Speech probability above which audio counts as speech. */
  @ApiPropertyOptional({ default: DEFAULT_VAD.threshold, ...range(LIVE_VAD_BOUNDS.threshold) })
  @OptionalField()
  @Max(LIVE_VAD_BOUNDS.threshold.max)
  @Min(LIVE_VAD_BOUNDS.threshold.min)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  threshold?: number;
  /** Audio kept before detected speech, in ms. */
  @ApiPropertyOptional({
    type: 'integer',
    default: DEFAULT_VAD.prefixPaddingMs,
    ...range(LIVE_VAD_BOUNDS.prefixPaddingMs),
  })
  @OptionalField()
  @Max(LIVE_VAD_BOUNDS.prefixPaddingMs.max)
  @Min(LIVE_VAD_BOUNDS.prefixPaddingMs.min)
  @IsInt()
  prefix_padding_ms?: number;
  /** Silence that ends a turn, in ms, when `end_of_turn` is null. */
  @ApiPropertyOptional({
    type: 'integer',
    default: DEFAULT_VAD.silenceDurationMs,
    ...range(LIVE_VAD_BOUNDS.silenceDurationMs),
  })
  @OptionalField()
  @Max(LIVE_VAD_BOUNDS.silenceDurationMs.max)
  @Min(LIVE_VAD_BOUNDS.silenceDurationMs.min)
  @IsInt()
  silence_duration_ms?: number;
  /**
   * Live sessions: turns end on the end-of-turn confidence (default for live sessions), with an
   * eager end of turn for the answer to be prepared; null: the fixed `silence_duration_ms` ends them
   * (the default, and the only kind, for transcription sessions).
   */
  @ApiProperty({ type: () => EndOfTurnRequestDto, nullable: true, required: false })
  @NullableField()
  @Type(() => EndOfTurnRequestDto)
  @ValidateNested()
  @IsObject()
  end_of_turn?: EndOfTurnRequestDto | null;
  /** Accepted for compatibility: live sessions always answer each turn. */
  @OptionalField()
  @IsBoolean()
  create_response?: boolean;
  /**
   * Conversation sessions (`session.type: "realtime"`): false lets an answer play on when the user
   * speaks over it. Other live sessions: accepted, no effect (they can always be interrupted).
   */
  @OptionalField()
  @IsBoolean()
  interrupt_response?: boolean;
  /**
   * Conversation sessions only (`session.type: "realtime"`): no speech for this long after an answer's
   * audio played brings `input_audio_buffer.timeout_triggered` and a prompt; null (the default): off.
   */
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: IDLE_TIMEOUT_MS.min,
    maximum: IDLE_TIMEOUT_MS.max,
  })
  @NullableField()
  @Max(IDLE_TIMEOUT_MS.max)
  @Min(IDLE_TIMEOUT_MS.min)
  @IsInt()
  idle_timeout_ms?: number | null;
}

@ApiSchema({ name: 'AudioInputRequest' })
export class AudioInputRequestDto {
  @OptionalField()
  @Type(() => AudioFormatRequestDto)
  @ValidateNested()
  @IsObject()
  format?: AudioFormatRequestDto;
  /** An object or null; accepted for compatibility, responses always show null. */
  @ApiProperty({ type: () => NoiseReductionRequestDto, nullable: true, required: false })
  @NullableField()
  @Type(() => NoiseReductionRequestDto)
  @ValidateNested()
  @IsObject()
  noise_reduction?: NoiseReductionRequestDto | null;
  @OptionalField()
  @Type(() => TranscriptionRequestDto)
  @ValidateNested()
  @IsObject()
  transcription?: TranscriptionRequestDto;
  /** null turns detection off: turns end when the client commits them. Default: server_vad. */
  @ApiProperty({ type: () => TurnDetectionRequestDto, nullable: true, required: false })
  @NullableField()
  @Type(() => TurnDetectionRequestDto)
  @ValidateNested()
  @IsObject()
  turn_detection?: TurnDetectionRequestDto | null;
}

@ApiSchema({ name: 'AudioOutputRequest' })
export class AudioOutputRequestDto {
  /** The only voice is `aria`. */
  @ApiPropertyOptional({ default: VOICE })
  @OptionalField()
  @MaxLength(64)
  @IsString()
  voice?: string;
  /** `binary` sends output audio as binary frames of raw pcm16 on the live socket. */
  @ApiPropertyOptional({ enum: ['base64', 'binary'], default: 'base64' })
  @OptionalField()
  @IsIn(['base64', 'binary'])
  encoding?: 'base64' | 'binary';
  /** Realtime conversation secrets only: the answer's format, as `input.format` (default pcm16 24 kHz). */
  @OptionalField()
  @Type(() => AudioFormatRequestDto)
  @ValidateNested()
  @IsObject()
  format?: AudioFormatRequestDto;
}

/**
 * A `type: "realtime"` session's audio: OpenAI's GA fields, held to the session core's conversation
 * rules by the service (the ones its socket's session.update is held to), so no rules here.
 */
export class RealtimeAudioRequestDto {
  @Allow()
  input?: Record<string, unknown>;
  @Allow()
  output?: Record<string, unknown>;
}

@ApiSchema({ name: 'AudioRequest' })
export class AudioRequestDto {
  @OptionalField()
  @Type(() => AudioInputRequestDto)
  @ValidateNested()
  @IsObject()
  input?: AudioInputRequestDto;
  /** Live sessions only. */
  @OptionalField()
  @Type(() => AudioOutputRequestDto)
  @ValidateNested()
  @IsObject()
  output?: AudioOutputRequestDto;
}

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
