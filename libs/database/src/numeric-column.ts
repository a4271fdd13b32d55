import type { ValueTransformer } from 'typeorm';

/**
 * `numeric` and `bigint` columns come back from pg as strings; prices, rates and millisecond counts are read as
 * numbers (six decimals, and milliseconds for millennia, fit a double).
 */
export const NUMERIC_AS_NUMBER: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
