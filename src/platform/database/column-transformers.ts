import type { ValueTransformer } from 'typeorm';

/** pg returns bigint as string; our amounts (micro-dollars, frames) stay far below 2^53. */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
