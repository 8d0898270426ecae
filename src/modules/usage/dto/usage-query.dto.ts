import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min, registerDecorator, ValidationArguments } from 'class-validator';

/** 10000-01-01T00:00:00Z: beyond it a day bucket would not be `YYYY-MM-DD`. */
export const MAX_UNIX_SECONDS = 253_402_300_800;

export const USAGE_GROUPINGS = ['day', 'model'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/**
 * Query strings arrive as text: only a plain decimal integer becomes a number. Anything else (`1.5`,
 * `1e3`, an empty value, a repeated parameter) stays as sent and fails `@IsInt()`, where implicit
 * conversion would have turned `''` into 0 and `1e3` into 1000.
 */
const StrictInt = () =>
  Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const raw = obj[key];
    return typeof raw === 'string' && /^-?\d{1,16}$/.test(raw) ? Number(raw) : raw;
  });

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
