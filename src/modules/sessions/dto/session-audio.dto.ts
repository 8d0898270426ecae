import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { SessionAudioConfig } from '../entities/session.entity';

@ApiSchema({ name: 'AudioFormatResponse' })
export class AudioFormatResponseDto {
  /** `audio/pcm` (pcm16 little-endian, mono); a Realtime secret's may be `audio/pcmu` or `audio/pcma` (G.711). */
  type: string;
  /** Samples per second: 24000 (8000 for G.711). */
  @ApiProperty({ type: 'integer', nullable: true })
  rate: number | null;
}

@ApiSchema({ name: 'TranscriptionResponse' })
export class TranscriptionResponseDto {
  /** `auto` or the language tag that was asked for. */
  language: string;
  /** The streaming transcription model (transcription sessions only). */
  model?: string;
  /** The prompt that was asked for, if any. */
  prompt?: string;
}

@ApiSchema({ name: 'EndOfTurnResponse' })
export class EndOfTurnResponseDto {
  /** Confidence at which a turn ends (0.5..1). */
  eot_threshold: number;
  /** Confidence at which an eager end of turn is announced; null: none. */
  @ApiProperty({ type: 'number', nullable: true })
  eager_eot_threshold: number | null;
  /** Silence after which a turn ends whatever the confidence, in ms. */
  eot_timeout_ms: number;
}

@ApiSchema({ name: 'TurnDetectionResponse' })
export class TurnDetectionResponseDto {
  @ApiProperty({ enum: ['server_vad'] })
  type: 'server_vad';
  /** Speech probability above which audio counts as speech (0..1). */
  threshold: number;
  /** Audio kept before detected speech, in ms. */
  prefix_padding_ms: number;
  /** Silence that ends a turn, in ms (when `end_of_turn` is null). */
  silence_duration_ms: number;
  /** Live sessions: the end-of-turn confidence thresholds; null: fixed silence. */
  @ApiPropertyOptional({ type: () => EndOfTurnResponseDto, nullable: true })
  end_of_turn?: EndOfTurnResponseDto | null;
  /** Conversation sessions, when asked for: false lets answers play on over the user's speech. */
  interrupt_response?: boolean;
  /** Conversation sessions, when asked for: the idle timeout in ms (null: off). */
  @ApiPropertyOptional({ type: 'integer', nullable: true })
  idle_timeout_ms?: number | null;
}

@ApiSchema({ name: 'AudioInputResponse' })
export class AudioInputResponseDto {
  format: AudioFormatResponseDto;
  transcription: TranscriptionResponseDto;
  /** null: turns end only when the client commits them. */
  @ApiProperty({ type: () => TurnDetectionResponseDto, nullable: true })
  turn_detection: TurnDetectionResponseDto | null;
  /** Always null: the service applies no noise reduction. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: false, nullable: true })
  noise_reduction?: null;
}

@ApiSchema({ name: 'AudioOutputResponse' })
export class AudioOutputResponseDto {
  /** Always `aria`. */
  voice: string;
  /** How output audio travels on the live socket. */
  @ApiProperty({ enum: ['base64', 'binary'] })
  encoding: 'base64' | 'binary';
  /** A Realtime conversation's output format when its secret named one. */
  format?: AudioFormatResponseDto;
}

@ApiSchema({ name: 'AudioResponse' })
export class AudioResponseDto {
  input: AudioInputResponseDto;
  /** Live sessions only; null for transcription sessions. */
  @ApiProperty({ type: () => AudioOutputResponseDto, nullable: true })
  output: AudioOutputResponseDto | null;
}

export function toSessionAudioResponse(audio: SessionAudioConfig): AudioResponseDto {
  const { format, transcription, turn_detection } = audio.input;
  return {
    input: {
      format: { type: format.type, rate: format.rate },
      transcription: { ...transcription },
      turn_detection: turn_detection ? (turn_detection as unknown as TurnDetectionResponseDto) : null,
      noise_reduction: null,
    },
    output: audio.output
      ? {
          voice: audio.output.voice,
          encoding: audio.output.encoding,
          ...(audio.output.format
            ? { format: { type: audio.output.format.type, rate: audio.output.format.rate } }
            : {}),
        }
      : null,
  };
}
