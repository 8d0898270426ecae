import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, registerDecorator, ValidationArguments } from 'class-validator';
import { OptionalUnixSeconds } from '../../../platform/validation/strict-int';

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
  @OptionalUnixSeconds()
  from?: number;

  /** End of the range, Unix seconds, exclusive. Default: the current second + 1 (everything so far). */
  @NotBeforeFrom()
  @OptionalUnixSeconds()
  to?: number;
}

export class UsageReportQueryDto extends UsageRangeQueryDto {
  /** Bucket by UTC day of the usage (`day`, the default) or by model (`model`). */
  @ApiPropertyOptional({ enum: USAGE_GROUPINGS, enumName: 'UsageGrouping', default: 'day' })
  @IsOptional()
  @IsIn(USAGE_GROUPINGS)
  group_by?: UsageGrouping;
}
