import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** 10000-01-01T00:00:00Z: beyond it a time is not a date PostgreSQL or a `YYYY-MM-DD` bucket can hold. */
export const MAX_UNIX_SECONDS = 253_402_300_800;

/**
 * Query strings arrive as text: only a plain decimal integer becomes a number. Anything else (`1.5`,
 * `1e3`, `1e20`, an empty value, a repeated parameter) stays as sent and fails `@IsInt()`, where
 * implicit conversion would have turned `''` into 0, `1e3` into 1000 and `1e20` into an integer no
 * column holds.
 */
export const StrictInt = () =>
  Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const raw = obj[key];
    return typeof raw === 'string' && /^-?\d{1,16}$/.test(raw) ? Number(raw) : raw;
  });

/**
 * An optional query parameter in Unix seconds: a plain integer from 0 to MAX_UNIX_SECONDS. Its type
 * check registers first (decorators run bottom-up), so a 422 reports a value of the wrong type as
 * such, not as out of range; a check of its own written above it runs after these.
 */
export const OptionalUnixSeconds = () =>
  applyDecorators(
    IsInt(),
    Min(0),
    Max(MAX_UNIX_SECONDS),
    StrictInt(),
    IsOptional(),
    ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_UNIX_SECONDS }),
  );
