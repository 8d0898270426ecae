import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CLOSE_REASONS, SESSION_STATUSES, SessionTokensDto } from '../../sessions';

@ApiSchema({ name: 'UsageExportSessionResponse' })
export class UsageExportSessionDto {
  session_id: string;
  @ApiProperty({ enum: ['live', 'transcription'] })
  type: 'live' | 'transcription';
  model: string;
  @ApiProperty({ enum: SESSION_STATUSES })
  status: string;
  @ApiProperty({ enum: CLOSE_REASONS, nullable: true, type: String })
  close_reason: string | null;
  /** Unix seconds. */
  @ApiProperty({ type: 'integer' })
  created_at: number;
  /** Unix seconds; null if the session never started. */
  @ApiProperty({ type: 'integer', nullable: true })
  started_at: number | null;
  /** Unix seconds; null while the session runs or if it never started. */
  @ApiProperty({ type: 'integer', nullable: true })
  ended_at: number | null;
  /** Frames metered in the range (the whole session's when the range covers it). */
  @ApiProperty({ type: 'integer' })
  frames: number;
  /** `frames * 0.08`. */
  seconds: number;
  /** USD as a 6-place decimal string. */
  cost_usd: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata: Record<string, string>;
  /** Text tokens billed in the range (as frames are); null when none were. */
  @ApiProperty({ type: () => SessionTokensDto, nullable: true })
  tokens: SessionTokensDto | null;
}

/**
 * Every session created or metered in the range, oldest first, with the usage metered in the range.
 * Streamed: the document is written as the database is read.
 */
@ApiSchema({ name: 'UsageExportResponse' })
export class UsageExportDto {
  @ApiProperty({ enum: ['usage.export'] })
  object: 'usage.export';
  /** Unix seconds, inclusive. */
  @ApiProperty({ type: 'integer' })
  from: number;
  /** Unix seconds, exclusive. */
  @ApiProperty({ type: 'integer' })
  to: number;
  data: UsageExportSessionDto[];
}
