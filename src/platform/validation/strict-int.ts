import { Transform } from 'class-transformer';

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
