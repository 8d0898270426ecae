import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Max, Min, registerDecorator, ValidationArguments } from 'class-validator';
import { MAX_UNIX_SECONDS, StrictInt } from '../../../platform/validation/strict-int';

export const USAGE_GROUPINGS = ['day', 'model'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** `to` may equal `from` (an empty range) but not precede it. */
function NotBeforeFrom(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'value_error',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'to must not be before from' },
      validator: {
        validate(value: unknown, args: ValidationArguments) {
          const from = (args.object as UsageRangeQueryDto).from;
          return typeof value !== 'number' || typeof from !== 'number' || value >= from;
        },
      },
    });
}

/** A half-open time range: events recorded at or after `from` and before `to`. */
export class UsageRangeQueryDto {
  /** Start of the range, Unix seconds, inclusive. Default: 0 (all history). */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_UNIX_SECONDS })
  @IsOptional()
  @StrictInt()
  @Max(MAX_UNIX_SECONDS)
  @Min(0)
  @IsInt() // decorators register bottom-up, and the 422 reports a field's first failure: the type first
  from?: number;

  /** End of the range, Unix seconds, exclusive. Default: the current second + 1 (everything so far). */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_UNIX_SECONDS })
  @IsOptional()
  @StrictInt()
  @NotBeforeFrom()
  @Max(MAX_UNIX_SECONDS)
  @Min(0)
  @IsInt()
  to?: number;
}

export class UsageReportQueryDto extends UsageRangeQueryDto {
  /** Bucket by UTC day of the usage (`day`, the default) or by model (`model`). */
  @ApiPropertyOptional({ enum: USAGE_GROUPINGS, enumName: 'UsageGrouping', default: 'day' })
  @IsOptional()
  @IsIn(USAGE_GROUPINGS)
  group_by?: UsageGrouping;
}
