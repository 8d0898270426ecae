import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'ModelAudioResponse' })
export class ModelAudioDto {
  /** Sample encoding of the socket audio, both ways. */
  format: string;
  /** Samples per second. */
  sample_rate: number;
  /** Length of one audio frame in milliseconds; the billing unit. */
  frame_ms: number;
  /** How output audio can be delivered (`audio.output.encoding`). */
  output_encodings: string[];
}

@ApiSchema({ name: 'ModelPriceResponse' })
export class ModelPriceDto {
  /** USD per minute of input audio, as a 6-place decimal string. */
  usd_per_minute: string;
  /**
   * USD per million input (context) tokens of a conversation's responses, as a 6-place decimal
   * string; null for a model that does no text work.
   */
  usd_per_million_input_tokens: string | null;
  /** USD per million output tokens of a conversation's responses; null for a model that does no text work. */
  usd_per_million_output_tokens: string | null;
}

@ApiSchema({ name: 'ModelCapacityResponse' })
export class ModelCapacityDto {
  /** Engine streams open on the instance that answered (each session holds one); per model's engine. */
  streams_in_use: number;
  /** Streams the instance serves at once; past it new sessions get 503 capacity_exhausted. */
  streams_max: number;
}

@ApiSchema({ name: 'ModelResponse' })
export class ModelDto {
  id: string;
  @ApiProperty({ enum: ['model'] })
  object: 'model';
  /** The session type this model serves. */
  @ApiProperty({ enum: ['live', 'transcription'] })
  type: 'live' | 'transcription';
  /** Unix seconds. */
  created: number;
  owned_by: string;
  audio: ModelAudioDto;
  /** Output voices; empty for transcription models. */
  voices: string[];
  max_session_seconds: number;
  price: ModelPriceDto;
  capacity: ModelCapacityDto;
  /**
   * Languages (ISO-639-1) the model's engine recognises; a session may ask for one of them or
   * `auto`, any other is refused with 400 invalid_parameter.
   */
  languages: string[];
}

@ApiSchema({ name: 'ModelListResponse' })
export class ModelListDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';
  data: ModelDto[];
}
