import { DomainError, ErrorCode } from '@app/contracts';

/** `GET /v2/teams/{teamId}/quota/history?windowSeconds=`: how far back, in seconds. */
export const QUOTA_WINDOW = { min: 60, max: 7 * 24 * 3600, default: 3600 } as const;

/**
 * The history's window from the query string: absent, an hour; else a whole number of seconds from a minute to a
 * week (the scheduler keeps a week of samples). Anything else is a 422 naming the parameter.
 */
export function quotaWindow(raw: unknown): number {
  if (raw === undefined || raw === '') return QUOTA_WINDOW.default;
  const value = typeof raw === 'string' && /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= QUOTA_WINDOW.min && value <= QUOTA_WINDOW.max)) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
      `windowSeconds must be a whole number of seconds from ${QUOTA_WINDOW.min} to ${QUOTA_WINDOW.max}; ` +
        `got ${JSON.stringify(raw)}`,
    ]);
  }
  return value;
}
