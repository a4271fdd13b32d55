import type { ValueTransformer } from 'typeorm';

/** `numeric` columns come back from pg as strings; prices and rates are read as numbers (six decimals fit a double). */
export const NUMERIC_AS_NUMBER: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
