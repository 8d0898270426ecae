import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
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
