import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalUnixSeconds, StrictInt } from '../../../platform/validation/strict-int';
import { SESSION_STATUSES, type SessionStatus } from '../entities/session.entity';

// Validators run bottom-up and a 422 reports the first failure of each field, so each field's type
// check is written last: a value of the wrong type is reported as such, not as out of range.

export class ListSessionsQueryDto {
  /** Unix seconds, inclusive: sessions created at or after. */
  @OptionalUnixSeconds()
  from?: number;
  /** Unix seconds, exclusive: sessions created before. */
  @OptionalUnixSeconds()
  to?: number;
  /** Only sessions in this state (a pending session whose secret lapsed counts as `expired`). */
  @ApiPropertyOptional({ enum: SESSION_STATUSES, enumName: 'SessionStatus' })
  @IsOptional()
  @IsIn(SESSION_STATUSES)
  status?: SessionStatus;
  /** `next_cursor` of the previous page. */
  @IsOptional()
  @MaxLength(256)
  @IsString()
  cursor?: string;
  /** Page size, 1..100. */
  @ApiPropertyOptional({ type: 'integer', default: 20 })
  @IsOptional()
  @StrictInt()
  @Max(100)
  @Min(1)
  @IsInt()
  limit?: number = 20;
}
