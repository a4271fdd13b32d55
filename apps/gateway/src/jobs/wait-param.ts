import { DomainError, ErrorCode } from '@app/contracts';

/** An optional integer query parameter within [min, max]; 422 naming it otherwise. */
export function intParam(
  name: string,
  raw: unknown,
  limits: { min: number; max: number; default?: number },
): number | undefined {
  if (raw === undefined || raw === '') return limits.default;
  const value = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < limits.min || value > limits.max) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
      `${name} must be an integer from ${limits.min} to ${limits.max} (milliseconds); got ${JSON.stringify(raw)}`,
    ]);
  }
  return value;
}
